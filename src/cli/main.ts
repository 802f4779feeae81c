import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { packageRoot } from '../core/index.js';
import { registerIndex } from './commands/index-cmd.js';
import { registerKeys } from './commands/keys.js';
import { registerRollups } from './commands/rollups.js';
import { registerServe } from './commands/serve.js';
import { registerSimulate } from './commands/simulate.js';
import { registerVerify } from './commands/verify.js';

/** The package version from package.json (core/package-root.ts: from src/, dist/ or dist/bundle/). */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(join(packageRoot(import.meta.url), 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

/**
 * The one CLI, `gamba-analytics` (package bin). It wires everything; nothing imports cli/.
 * Each subcommand lives in commands/<name>.ts and exports `registerX(program)`.
 */
export async function main(argv: string[]): Promise<void> {
  const program = new Command('gamba-analytics')
    .description('Gamba v2 analytics: indexer, chain simulator and REST API')
    .version(packageVersion(), '-V, --version', 'print the package version')
    .showHelpAfterError();
  registerServe(program);
  registerIndex(program);
  registerKeys(program);
  registerSimulate(program);
  registerRollups(program);
  registerVerify(program);
  await program.parseAsync(argv);
}
