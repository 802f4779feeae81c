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

/**
 * For a supervised child (src/cli/children.ts): when the parent's IPC channel closes — the
 * parent exited or was killed — run the shutdown registry and exit, so no child outlives its
 * parent (docs/architecture.md "Process topology"). No-op without an IPC channel.
 */
export function exitWithParent(common: Common): void {
  if (typeof process.send !== 'function') return;
  process.once('disconnect', () => {
    if (common.shutdown.closing) return;
    common.logger.warn({ ppid: process.ppid }, 'parent process gone: shutting down');
    common.shutdown.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
