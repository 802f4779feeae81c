import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { BLOCK_DAYS, SEG_DAYS } from '../rollups/definitions.js';
import { keysetList, num } from './common.js';

/**
 * One part of a window (a whole 32-day block, 8-day segment or day) of a per-player rollup:
 * `table` (ru_block_user, ru_seg_user, ru_day_user or their per-creator forms), its unit column
 * and number, the creator filter of a per-creator table, and the value column read.
 */
export interface PartRef {
  table: string;
  unit: 'block' | 'seg' | 'day';
  n: number;
  creator?: string | undefined;
  column: string;
}

/**
 * A part's rows in memory: player numbers (of a Numbering) and their values rounded to the nearest
 * single-precision float (Math.fround). A value `v` so held is within COPY_ERROR·|v| + COPY_TINY of the
 * stored double (2^-24 relative for normal floats, 2^-150 below them; USD values stay far below
 * float32's largest, 3.4e38). Player numbers take 2 bytes while the numbering has under 65,536
 * players, else 4: a row costs 6 bytes, or 8 (docs/design.md §7 "Part vectors").
 */
export interface PartVector {
  /** Σ of the part's days' rev (ru_day_rev) read before the rows. */
  stamp: number;
  players: Uint16Array | Int32Array;
  values: Float32Array;
}

/**
 * Relative bound on a copy's value against the stored double: 2^-24 for rounding to float32,
 * doubled to cover the double-precision additions of a window's copies (each within 2^-53 of its
 * running total: n·2^-53 for n ≤ a few hundred parts) and the value's own magnitude taken from the
 * copy rather than the stored double.
 */
export const COPY_ERROR = 1.2e-7;

/** Absolute bound added per value: float32's rounding below its smallest normal (2^-150) over COPY_ERROR. */
export const COPY_TINY = 1e-38;

/** Days [first, end) of a part (day numbers). */
function daysOf(p: PartRef): [number, number] {
  const len = p.unit === 'block' ? BLOCK_DAYS : p.unit === 'seg' ? SEG_DAYS : 1;
  return [p.n * len, (p.n + 1) * len];
}

/** Bytes of a copy's arrays. */
const sizeOf = (v: PartVector): number => v.players.byteLength + v.values.byteLength;

/** Bytes a player number costs beyond its vector entries (its name and map entry), roughly. */
const PLAYER_BYTES = 96;

/**
 * Player addresses numbered on first sight. Copies hold numbers of one numbering; a new numbering
 * (PartVectors drops every copy with the old one) never renumbers a copy a caller still holds.
 */
export class Numbering {
  private readonly numbers = new Map<string, number>();
  /** Player addresses by number. */
  readonly names: string[] = [];

  /** The player's number (given on first sight). */
  numberOf(player: string): number {
    let n = this.numbers.get(player);
    if (n === undefined) {
      n = this.names.length;
      this.numbers.set(player, n);
      this.names.push(player);
    }
    return n;
  }
}

/**
 * In-memory copies of window parts' rows (docs/design.md §7 "Part vectors"), kept per database
 * handle: a whole block, segment or day of a per-player rollup as typed arrays (player numbers,
 * values), least recently used dropped past `capBytes`. A copy is stamped
 * with the sum of its days' `rev` in ru_day_rev (migration 0029), read before its rows: the write
 * path adds 1 to a day's rev in the transaction that changes its rollups, so a copy whose stamp
 * still equals the sum holds the rows as stored (a write between the two reads only makes the copy
 * newer than its stamp, and it is read again next time). When the players numbered pass half the
 * cap, every copy is dropped with its numbering.
 */
export class PartVectors {
  private parts = new Map<string, PartVector & { numbering: Numbering }>();
  private numbering = new Numbering();
  private bytes = 0;
  private readonly prefetchKeys = new Set<string>();
  private readonly running = new Set<Promise<void>>();
  private reads = 0;

  constructor(private readonly capBytes: number) {}

  /** Bytes the copies hold now (their arrays), at most the cap. */
  get bytesHeld(): number {
    return this.bytes;
  }

  /** Parts read into copies so far (first reads and re-reads of changed parts). */
  get partsRead(): number {
    return this.reads;
  }

  /** Whether copies are kept at all (a cap above 0): topWindow's default ranking uses them only then. */
  get enabled(): boolean {
    return this.capBytes > 0;
  }

  /**
   * The copies of `parts`, in order, each as stored now (values of the part's column, players as
   * numbers of the returned numbering): a copy whose stamp moved, or missing, is read again (one
   * statement per part, or one per `pageRows` rows with an event-loop turn between them). Throws
   * what the database throws.
   */
  async vectors(db: Kysely<Database>, parts: readonly PartRef[], pageRows = Infinity): Promise<{ numbering: Numbering; vectors: PartVector[] }> {
    if (this.numbering.names.length * PLAYER_BYTES > this.capBytes / 2) {
      this.parts = new Map();
      this.numbering = new Numbering();
      this.bytes = 0;
    }
    // Every copy of this call is of one numbering, even if another call starts a new one meanwhile.
    const numbering = this.numbering;
    if (parts.length === 0) return { numbering, vectors: [] };
    let lo = Infinity;
    let hi = -Infinity;
    for (const p of parts) {
      const [a, b] = daysOf(p);
      lo = Math.min(lo, a);
      hi = Math.max(hi, b);
    }
    const revs = new Map<number, number>();
    const r = await sql<{ day: unknown; rev: unknown }>`select day, rev from ru_day_rev where day >= ${lo} and day < ${hi}`.execute(db);
    for (const row of r.rows) revs.set(num(row.day), num(row.rev));
    const vectors: PartVector[] = [];
    for (const p of parts) {
      const [a, b] = daysOf(p);
      let stamp = 0;
      for (let d = a; d < b; d++) stamp += revs.get(d) ?? 0;
      const key = `${p.table}\u0000${p.n}\u0000${p.creator ?? ''}\u0000${p.column}`;
      const had = this.parts.get(key);
      if (had !== undefined && had.stamp === stamp && had.numbering === numbering) {
        // Most recently used last (Map order is insertion order).
        this.parts.delete(key);
        this.parts.set(key, had);
        vectors.push(had);
        continue;
      }
      const v = await read(db, p, stamp, numbering, pageRows);
      this.reads++;
      vectors.push(v);
      if (numbering !== this.numbering) continue;
      const old = this.parts.get(key);
      if (old !== undefined) this.drop(key, old);
      this.parts.set(key, { ...v, numbering });
      this.bytes += sizeOf(v);
      this.evict();
    }
    return { numbering, vectors };
  }

  /**
   * Reads `parts` into copies one at a time in the background, PREFETCH_PAGE_ROWS rows a statement
   * with a macrotask between statements, so a request on the same connection waits for one page at
   * most, not a whole block; once per `key`, while the copies stay under PREFETCH_SHARE of the cap;
   * errors end it quietly (the store may be closing).
   */
  prefetch(db: Kysely<Database>, key: string, parts: () => Promise<PartRef[]>): void {
    if (!this.enabled || this.prefetchKeys.has(key)) return;
    this.prefetchKeys.add(key);
    const run = async (): Promise<void> => {
      const list = await parts();
      // Nothing stored yet: the first window read later starts it again.
      if (list.length === 0) this.prefetchKeys.delete(key);
      for (const p of list) {
        await new Promise((resolve) => setTimeout(resolve, 0));
        if (this.bytes + this.numbering.names.length * PLAYER_BYTES > this.capBytes * PREFETCH_SHARE) return;
        await this.vectors(db, [p], PREFETCH_PAGE_ROWS);
      }
    };
    const running = run().catch(() => undefined);
    this.running.add(running);
    void running.then(() => this.running.delete(running));
  }

  /** Resolves once every background read started so far (prefetch) has ended, read or given up. */
  async prefetched(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  private drop(key: string, v: PartVector): void {
    this.parts.delete(key);
    this.bytes -= sizeOf(v);
  }

  /** Drops the least recently used copies past the cap (a caller keeps the copies it holds). */
  private evict(): void {
    for (const [key, v] of this.parts) {
      if (this.bytes + this.numbering.names.length * PLAYER_BYTES <= this.capBytes) return;
      this.drop(key, v);
    }
  }
}

/**
 * A part's rows as a copy numbered by `numbering`, read through the part's sort index (its order):
 * whole, or `pageRows` rows a statement continued by keyset (common.ts keysetList) after a macrotask.
 * A write between pages may leave the copy mixed, but it also raises a day's rev past `stamp`, so
 * the copy is read again before any use.
 */
async function read(db: Kysely<Database>, p: PartRef, stamp: number, numbering: Numbering, pageRows: number): Promise<PartVector> {
  const where = p.creator === undefined ? sql`` : sql`and creator = ${p.creator}`;
  const list = keysetList(db, p.table, sql`and ${sql.raw(p.unit)} = ${p.n} ${where}`, p.column);
  const size = Number.isFinite(pageRows) ? pageRows : WHOLE_PART;
  const numbers: number[] = [];
  const values: number[] = [];
  for (;;) {
    const rows = await list.next(size);
    for (const x of rows) {
      numbers.push(numbering.numberOf(x.player));
      values.push(x.v);
    }
    if (rows.length < size) break;
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return { stamp, players: numbering.names.length <= 0x10000 ? Uint16Array.from(numbers) : Int32Array.from(numbers), values: Float32Array.from(values) };
}

/** The LIMIT of a part read whole: above any part's rows (one per player). */
const WHOLE_PART = 2 ** 31 - 1;

/** MiB of part copies kept per database handle by default (each SQLite reader thread has its own). */
export const PART_VECTORS_MIB = 24;

const MIB = 1024 * 1024;

/** Rows a background read takes a statement (about 2–4 ms of a reader's time at 10M games). */
const PREFETCH_PAGE_ROWS = 4096;

/** Share of the cap the background reads fill at most: the rest is left to the parts requests read. */
const PREFETCH_SHARE = 0.75;

const byHandle = new WeakMap<object, PartVectors>();

/**
 * The part copies of a database handle, created on first use with a cap of `capMiB` MiB (later
 * calls keep the first cap; 0 keeps none: PartVectors.enabled is false).
 */
export function partVectorsOf(db: Kysely<Database>, capMiB = PART_VECTORS_MIB): PartVectors {
  let v = byHandle.get(db);
  if (v === undefined) byHandle.set(db, (v = new PartVectors(Math.max(0, capMiB) * MIB)));
  return v;
}
