import type { Common } from '../core/index.js';

/**
 * Ties a long-running command to the process: SIGTERM/SIGINT run the shutdown registry once
 * (stop accepting, finish in-flight work, close pools; docs/design.md §9) and exit 0, or 1 when a
 * close step failed.
 */
export function exitOnSignals(common: Common): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    common.logger.info({ signal }, 'shutting down');
    common.shutdown.close().then(
      () => process.exit(0),
      (err: unknown) => {
        common.logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

/** How long an orphaned child may take to shut down before it exits anyway, ms. */
const ORPHAN_EXIT_MS = 5000;

/**
 * For a supervised child (src/cli/children.ts): when the parent's IPC channel closes — the
 * parent exited or was killed — run the shutdown registry and exit, so no child outlives its
 * parent (docs/architecture.md "Process topology"). A shutdown that hangs (e.g. retrying a
 * price source that died with the parent) is cut after 5 s: the store transaction in progress
 * is atomic, so exiting mid-batch loses nothing (docs/indexer.md). No-op without an IPC channel.
 */
export function exitWithParent(common: Common): void {
  if (typeof process.send !== 'function') return;
  const orphaned = () => {
    setTimeout(() => process.exit(1), ORPHAN_EXIT_MS).unref();
    if (common.shutdown.closing) return;
    common.logger.warn({ ppid: process.ppid }, 'parent process gone: shutting down');
    common.shutdown.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  // The parent may have died while this process was still loading (the event came and went).
  if (!process.connected) return orphaned();
  process.once('disconnect', orphaned);
}
