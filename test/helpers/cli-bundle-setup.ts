/**
 * vitest globalSetup (vitest.config.ts): bundles the CLI and the suites' child entries from the
 * sources once per project, for cli-bundle.ts bundledEntry. Imports nothing of vitest's runtime
 * (a globalSetup runs in vitest's main process, outside any test).
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { bundleCli } from '../../scripts/bundle-cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The bundle's entries: the CLI as bin/gamba-analytics.js runs it, and the suites' indexer children. */
const ENTRIES = {
  'run-cli': join(ROOT, 'test/helpers/entries/run-cli.ts'),
  'index-child': join(ROOT, 'test/helpers/entries/index-child.ts'),
  'elected-indexer-child': join(ROOT, 'test/helpers/entries/elected-indexer-child.ts'),
  // The reader pool starts `worker.js` next to its own module: a chunk of the same directory.
  worker: join(ROOT, 'src/store/readers/worker.ts'),
} as const;

/** An entry a suite starts (the reader thread's is started by the pool). */
export type BundledEntry = Exclude<keyof typeof ENTRIES, 'worker'>;

/** Where the runs' bundles lie: one directory per run (its process id), built once, shared by the projects. */
const BUNDLES = join(ROOT, 'node_modules', '.cache', 'gamba-test-cli');

/** Whether process `pid` is alive (signal 0 checks without sending). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Run once per project (and once for the root config), each time in a fresh module instance: the
 * first call of a run bundles ENTRIES into the run's directory, built beside it and renamed into
 * place, and the later calls find it there. The directory is removed at the end; those of runs
 * whose process is gone (killed before their teardown) are removed first.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  mkdirSync(BUNDLES, { recursive: true });
  for (const name of readdirSync(BUNDLES)) {
    const pid = Number(name.split('.')[0]);
    if (Number.isInteger(pid) && pid !== process.pid && !alive(pid)) rmSync(join(BUNDLES, name), { recursive: true, force: true });
  }
  const dir = join(BUNDLES, String(process.pid));
  if (!existsSync(dir)) {
    const building = `${dir}.${project.name || 'root'}`;
    await bundleCli(ENTRIES, building);
    try {
      renameSync(building, dir);
    } catch {
      rmSync(building, { recursive: true, force: true }); // another project's setup finished first
    }
  }
  project.provide('cliBundle', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
