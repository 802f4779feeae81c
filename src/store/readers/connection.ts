import BetterSqlite3 from 'better-sqlite3';
import type { ReaderSettings } from './protocol.js';

/**
 * Where a reader's sorts and temp B-trees live (docs/architecture.md "Reader pool"): `FILE`.
 * With `MEMORY` a window query that groups millions of per-player rows keeps every page of its
 * temp B-trees on the heap, without bound (742 MB API peak at 10M games, docs/benchmarks.md
 * "Ten million games"). With `FILE` SQLite keeps a bounded cache per sort (the connection's
 * `cache_size`) and per temp B-tree (the library's default page cache) and writes the rest to a
 * temp file, which the unix VFS opens only when a sort or temp B-tree outgrows that cache (small
 * queries never touch a file) in `SQLITE_TMPDIR`, `TMPDIR`, `/var/tmp`, `/usr/tmp` or `/tmp`
 * (the first that is writable), unlinked as soon as it is opened. Its pages sit in the OS page
 * cache, outside the process's RSS. Measured in docs/benchmarks.md "Reader threads' temp storage".
 */
export const READER_TEMP_STORE = 'FILE';

/**
 * Opens a reader thread's SQLite connection (docs/architecture.md "Reader pool") and sets its
 * pragmas: `query_only` (it cannot change the file, whatever runs on it), the busy timeout (ms),
 * a page cache of `cacheMiB` MiB, temp storage in files (READER_TEMP_STORE) and no memory map
 * (`mmap_size = 0`: mapped pages of the file would count in the process's RSS; the OS page cache
 * keeps them outside it). Integers are read as BigInt (u64 halves summed over many rows exceed
 * 2^53, docs/architecture.md "Exact token sums"). Throws the driver's error when the file is
 * missing (a reader never creates the database: the writer does, and migrates it) or a pragma
 * fails; the connection is closed then.
 */
export function openReaderDatabase(settings: Pick<ReaderSettings, 'path' | 'busyTimeoutMs' | 'cacheMiB'>): BetterSqlite3.Database {
  const database = new BetterSqlite3(settings.path, { fileMustExist: true });
  try {
    database.pragma('query_only = ON');
    database.pragma(`busy_timeout = ${Math.max(0, Math.floor(settings.busyTimeoutMs))}`);
    // Negative = KiB, not pages. Each reader thread has its own: `STORE_READERS` × this in all.
    database.pragma(`cache_size = -${Math.max(1, Math.floor(settings.cacheMiB)) * 1024}`);
    database.pragma(`temp_store = ${READER_TEMP_STORE}`);
    database.pragma('mmap_size = 0');
    database.defaultSafeIntegers(true);
  } catch (err) {
    database.close();
    throw err;
  }
  return database;
}
