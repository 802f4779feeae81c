import BetterSqlite3 from 'better-sqlite3';

/**
 * A real way to make SQLite readers wait: another connection's exclusive lock. In WAL mode (the
 * store's mode) readers never wait for a writer, which is the point of WAL; so the database is
 * first switched to the rollback journal (docs/hardening.md "Store deadline" tests), where a
 * connection holding an EXCLUSIVE lock keeps every reader out until it ends its transaction.
 * Call with no other connection open on the file.
 */
export function useRollbackJournal(path: string): void {
  const db = new BetterSqlite3(path);
  try {
    db.pragma('journal_mode = DELETE');
  } finally {
    db.close();
  }
}

/** Takes the EXCLUSIVE lock of `path` until `release()` (rollback, close). Throws SQLITE_BUSY while a reader holds a lock. */
export function holdExclusiveLock(path: string): { release(): void } {
  const db = new BetterSqlite3(path);
  db.exec('begin exclusive');
  return {
    release() {
      db.exec('rollback');
      db.close();
    },
  };
}
