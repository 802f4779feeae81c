/**
 * The CLI as the suites run it in a child process: bundled once per `npm test` from the current
 * sources (vitest globalSetup cli-bundle-setup.ts, vitest.config.ts) with the esbuild options of
 * `npm run build` (scripts/bundle-cli.js bundleCli), so a child starts as `npm start` does: plain
 * `node`, one bundle, no TypeScript loader. Under tsx each process, reader thread and forked child
 * loaded ≈ 1,500 module files and transpiled the sources again: `serve --no-indexer` listened after
 * 2.9 s and 4 s of CPU, against 1.1 s and 1 s from a bundle.
 * The bundle lies under node_modules/.cache/ of this checkout, so its external packages resolve
 * from node_modules/ and the package root (src/core/package-root.ts) is this checkout's.
 *
 * Suites that watch which source modules a process loads (test/cli/topology.test.ts) keep
 * starting the CLI from source through tsx.
 */
import { join } from 'node:path';
import { inject } from 'vitest';
import type { BundledEntry } from './cli-bundle-setup.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Directory of the test run's CLI bundle (cli-bundle.ts). */
    cliBundle: string;
  }
}

/** Node arguments that run one of the bundle's entries (then the entry's own arguments). */
export function bundledEntry(name: BundledEntry): string[] {
  return [join(inject('cliBundle'), `${name}.js`)];
}
