import { createHash, createHmac } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import { BLOCK_DAYS, blockOf } from '../rollups/index.js';
import type { Database } from '../schema.js';
import { runPrecompiled } from '../statement-cache.js';

/**
 * The fairness audit of settled games (docs/design.md "Fairness audit", facts in docs/protocol.md §4).
 * Each game gets a verdict in the write path, in the transaction that stores it: the rules judged
 * on the game alone (`fair_own`) once, and the seed commitment against the previous settle of the
 * same player in chain order (slot, signature, event index). When a game is stored, both it and
 * the player's next stored game (whose predecessor just arrived) are re-evaluated, so the verdicts
 * do not depend on arrival order (backfill newest first, tail oldest first, retried batches).
 */

/** A game's verdict: `verified`, `unverifiable` (a reason) or `violation` (a rule). */
export type Fairness = 'verified' | 'unverifiable' | 'violation';

/** The rules a violation names (docs/design.md "Fairness audit"). */
export const FAIRNESS_RULES = ['commitment', 'result_index', 'multiplier', 'payout'] as const;
/** A violated rule. */
export type FairnessRule = (typeof FAIRNESS_RULES)[number];
/** Why a game is unverifiable: `first_seen` (no earlier settle of the player indexed), `no_bet` (empty bet table), `not_audited` (stored before migration 0011, until a rebuild). */
export const UNVERIFIABLE_REASONS = ['first_seen', 'no_bet', 'not_audited'] as const;

/** The GameSettled fields the rules read (docs/protocol.md §4; amounts in smallest units). */
export interface AuditedFields {
  rngSeed: string;
  clientSeed: string;
  nonce: bigint;
  bet: readonly number[];
  resultIndex: bigint;
  multiplierBps: number;
  wager: bigint;
  payout: bigint;
}

/** SHA-256 of a seed's text (UTF-8), lowercase hex: what `nextRngSeedHashed` commits to (docs/protocol.md §4). */
export function seedHash(rngSeed: string): string {
  return createHash('sha256').update(rngSeed, 'utf8').digest('hex');
}

/**
 * The rules judged on a game alone, first failing one: `no_bet` (empty bet table: nothing to
 * check), `result_index` (≠ parseInt(first 5 hex of HMAC-SHA256(key = rngSeed, msg =
 * `${clientSeed}-${nonce}`), 16) mod bet.length), `multiplier` (multiplierBps ≠ bet[resultIndex]),
 * `payout` (|payout × 10000 − wager × multiplierBps| ≥ 10000: payout is neither the floor nor the
 * ceiling of wager × multiplierBps / 10000), else `ok`.
 */
export function ownRule(d: AuditedFields): 'ok' | 'no_bet' | FairnessRule {
  if (d.bet.length === 0) return 'no_bet';
  const hex = createHmac('sha256', d.rngSeed).update(`${d.clientSeed}-${d.nonce}`).digest('hex');
  const index = parseInt(hex.slice(0, 5), 16) % d.bet.length;
  if (d.resultIndex !== BigInt(index)) return 'result_index';
  if (d.bet[index] !== d.multiplierBps) return 'multiplier';
  const diff = d.payout * 10_000n - d.wager * BigInt(d.multiplierBps);
  if (diff <= -10_000n || diff >= 10_000n) return 'payout';
  return 'ok';
}

/** The audit columns of a stored game that a verdict reads. */
interface Audited {
  fair_own: string | null;
  seed_hash: string | null;
  next_seed_hash: string | null;
}

/**
 * A game's verdict from its own rules and the previous settle of the same player (null when
 * none is indexed). Precedence: commitment, then the own rules, then unverifiable reasons.
 */
export function verdictOf(g: Audited, prev: Audited | null): { fairness: Fairness; rule: string | null } {
  if (g.fair_own === null) return { fairness: 'unverifiable', rule: 'not_audited' };
  if (prev !== null && prev.next_seed_hash !== null && g.seed_hash !== prev.next_seed_hash) return { fairness: 'violation', rule: 'commitment' };
  if (g.fair_own === 'result_index' || g.fair_own === 'multiplier' || g.fair_own === 'payout') return { fairness: 'violation', rule: g.fair_own };
  if (g.fair_own === 'no_bet') return { fairness: 'unverifiable', rule: 'no_bet' };
  if (prev === null) return { fairness: 'unverifiable', rule: 'first_seen' };
  if (prev.next_seed_hash === null) return { fairness: 'unverifiable', rule: 'not_audited' };
  return { fairness: 'verified', rule: null };
}

/** A game as the audit sees it: key, dimensions of ru_fair_day, audit columns and its verdict. */
export interface AuditRow extends Audited {
  signature: string;
  event_index: number;
  slot: number;
  day: number;
  /** Start of the game's UTC hour, Unix ms (ru_fair_hg). */
  hour_ms: number;
  player: string;
  creator: string;
  token: string;
  pool: string;
  fairness: string;
  fairness_rule: string | null;
}

type Db = Transaction<Database> | Kysely<Database>;
const AUDIT_COLUMNS = ['signature', 'event_index', 'slot', 'day', 'hour_ms', 'player', 'creator', 'token', 'pool', 'fair_own', 'seed_hash', 'next_seed_hash', 'fairness', 'fairness_rule'] as const;

const cmp = (a: AuditRow, b: AuditRow) => a.slot - b.slot || (a.signature < b.signature ? -1 : a.signature > b.signature ? 1 : 0) || a.event_index - b.event_index;
const keyOf = (r: { signature: string; event_index: number }) => `${r.signature} ${r.event_index}`;
function rowOf(r: Record<(typeof AUDIT_COLUMNS)[number], unknown>): AuditRow {
  return { ...(r as unknown as AuditRow), slot: Number(r.slot), day: Number(r.day), hour_ms: Number(r.hour_ms), event_index: Number(r.event_index) };
}

/** Per (day, hour, creator, token, pool, player, fairness, rule) changes of the fairness count tables. */
export class FairAccumulator {
  private readonly deltas = new Map<string, { row: Omit<AuditRow, 'fair_own' | 'seed_hash' | 'next_seed_hash' | 'signature' | 'event_index' | 'slot'>; n: number }>();

  /** Counts a game under its verdict (`n` = +1, or −1 to take a former verdict back). */
  add(r: AuditRow, n: number): void {
    const k = `${r.hour_ms}|${r.creator}|${r.token}|${r.pool}|${r.player}|${r.fairness}|${r.fairness_rule ?? ''}`;
    const e = this.deltas.get(k);
    if (e) e.n += n;
    else this.deltas.set(k, { row: { day: r.day, hour_ms: r.hour_ms, creator: r.creator, token: r.token, pool: r.pool, player: r.player, fairness: r.fairness, fairness_rule: r.fairness_rule }, n });
  }

  /** Adds the deltas to ru_fair_day, ru_fair_dg, ru_fair_bg, ru_fair_hg, ru_fair_user and ru_fair (upserts) and deletes rows that fell to 0. */
  async flush(db: Db): Promise<void> {
    const all = [...this.deltas.values()];
    this.deltas.clear();
    // The same changes summed per time unit (UTC day, 32-day block or hour, or none: all time) and
    // with or without the player: ru_fair_day (day, player), ru_fair_dg (day), ru_fair_bg (block),
    // ru_fair_hg (hour), ru_fair_user (player), ru_fair (neither).
    const summed = (unit: 'day' | 'block' | 'hour' | null, withPlayer: boolean) => {
      const m = new Map<string, { row: (typeof all)[number]['row']; n: number }>();
      for (const e of all) {
        const at = unit === 'day' ? e.row.day : unit === 'block' ? blockOf(e.row.day) : unit === 'hour' ? e.row.hour_ms : '';
        const k = `${at}|${withPlayer ? e.row.player : ''}|${e.row.creator}|${e.row.token}|${e.row.pool}|${e.row.fairness}|${e.row.fairness_rule ?? ''}`;
        const a = m.get(k);
        if (a) a.n += e.n;
        else m.set(k, { row: e.row, n: e.n });
      }
      return [...m.values()].filter((e) => e.n !== 0);
    };
    const keyOf = (row: (typeof all)[number]['row']) => ({ creator: row.creator, token: row.token, pool: row.pool, fairness: row.fairness, rule: row.fairness_rule ?? '' });
    await addCounts(db, 'ru_fair', summed(null, false).map(({ row, n }) => ({ key: keyOf(row), n })));
    await addCounts(db, 'ru_fair_dg', summed('day', false).map(({ row, n }) => ({ key: { day: row.day, ...keyOf(row) }, n })));
    await addCounts(db, 'ru_fair_bg', summed('block', false).map(({ row, n }) => ({ key: { block: blockOf(row.day), ...keyOf(row) }, n })));
    await addCounts(db, 'ru_fair_hg', summed('hour', false).map(({ row, n }) => ({ key: { hour_ms: row.hour_ms, ...keyOf(row) }, n })));
    await addCounts(db, 'ru_fair_user', summed(null, true).map(({ row, n }) => ({ key: { player: row.player, ...keyOf(row) }, n })));
    await addCounts(db, 'ru_fair_day', summed('day', true).map(({ row, n }) => ({ key: { day: row.day, ...keyOf(row), player: row.player }, n })));
  }
}

/**
 * Adds `n` to the `games` count of each keyed row of a fairness count table (upserts, 256 rows
 * a statement), then deletes the rows whose count fell to 0.
 */
async function addCounts(db: Db, table: 'ru_fair' | 'ru_fair_dg' | 'ru_fair_bg' | 'ru_fair_hg' | 'ru_fair_user' | 'ru_fair_day', changes: { key: Record<string, string | number>; n: number }[]): Promise<void> {
  if (changes.length === 0) return;
  const columns = Object.keys(changes[0]!.key);
  const d = db as unknown as Kysely<any>;
  for (let i = 0; i < changes.length; i += 256) {
    await d
      .insertInto(table)
      .values(changes.slice(i, i + 256).map(({ key, n }) => ({ ...key, games: n })))
      .onConflict((oc) => oc.columns(columns).doUpdateSet({ games: sql`${sql.table(table)}.games + excluded.games` }))
      .execute();
  }
  for (const { key, n } of changes) {
    if (n > 0) continue;
    let q = d.deleteFrom(table).where('games', '=', 0);
    for (const c of columns) q = q.where(c, '=', key[c]);
    await q.execute();
  }
}

/**
 * Gives each game of a batch (not yet inserted) its verdict, in place, and re-evaluates the
 * stored games whose predecessor changes (the player's next stored game after each new one, and
 * stored games interleaved with the batch's). Returns the stored games whose verdict changed,
 * with their former verdicts, so the caller updates them once the batch's rows are in. Reads per
 * player of the batch: its previous and next stored settle (index g_player_order), and with
 * several games the stored ones between them.
 */
export async function auditBatch(db: Db, batch: AuditRow[]): Promise<{ row: AuditRow; was: { fairness: string; fairness_rule: string | null } }[]> {
  const byPlayer = new Map<string, AuditRow[]>();
  for (const r of batch) {
    const list = byPlayer.get(r.player);
    if (list) list.push(r);
    else byPlayer.set(r.player, [r]);
  }
  const changed: { row: AuditRow; was: { fairness: string; fairness_rule: string | null } }[] = [];
  const keys = ['slot', 'signature', 'event_index'] as const;
  for (const [player, list] of byPlayer) {
    list.sort(cmp);
    const first = list[0]!;
    const last = list[list.length - 1]!;
    // The previous and the next stored settle of the player, in one precompiled statement.
    const cols = sql.raw(AUDIT_COLUMNS.join(', '));
    const around = await runPrecompiled<Record<(typeof AUDIT_COLUMNS)[number], unknown> & { side: unknown }>(
      db,
      'fairness:neighbours',
      () =>
        sql`select * from (select 0 as side, ${cols} from games where player = ${''} and (slot, signature, event_index) < (${0}, ${''}, ${0})
            order by slot desc, signature desc, event_index desc limit 1) p
          union all
          select * from (select 1 as side, ${cols} from games where player = ${''} and (slot, signature, event_index) > (${0}, ${''}, ${0})
            order by slot, signature, event_index limit 1) n`.compile(db),
      [player, first.slot, first.signature, first.event_index, player, last.slot, last.signature, last.event_index],
    );
    const before = around.rows.find((r) => Number(r.side) === 0);
    const after = around.rows.find((r) => Number(r.side) === 1);
    // The chain from the previous stored settle: the batch's games and, with several, the stored
    // ones between them (a stored copy of a batch game stands for it: a retried batch).
    let seq: { r: AuditRow; stored: boolean }[];
    if (list.length === 1) seq = [{ r: first, stored: false }];
    else {
      const between = await db
        .selectFrom('games')
        .select(AUDIT_COLUMNS)
        .where('player', '=', player)
        .where((eb) => eb(eb.refTuple(...keys), '>=', eb.tuple(first.slot, first.signature, first.event_index)))
        .where((eb) => eb(eb.refTuple(...keys), '<=', eb.tuple(last.slot, last.signature, last.event_index)))
        .orderBy('slot')
        .orderBy('signature')
        .orderBy('event_index')
        .execute();
      const stored = new Map(between.map((b) => [keyOf(b), rowOf(b)]));
      const merged = new Map<string, { r: AuditRow; stored: boolean }>();
      for (const r of list) if (!stored.has(keyOf(r))) merged.set(keyOf(r), { r, stored: false });
      for (const [k, r] of stored) merged.set(k, { r, stored: true });
      seq = [...merged.values()].sort((a, b) => cmp(a.r, b.r));
    }
    if (after) seq.push({ r: rowOf(after), stored: true });
    let prev: AuditRow | null = before ? rowOf(before) : null;
    for (const { r, stored } of seq) {
      const v = verdictOf(r, prev);
      if (!stored) {
        r.fairness = v.fairness;
        r.fairness_rule = v.rule;
      } else if (v.fairness !== r.fairness || v.rule !== r.fairness_rule) {
        changed.push({ row: { ...r, fairness: v.fairness, fairness_rule: v.rule }, was: { fairness: r.fairness, fairness_rule: r.fairness_rule } });
      }
      prev = r;
    }
    // A game listed twice in the batch: every copy gets the verdict of the one judged.
    if (list.length > 1) {
      const judged = new Map(seq.map(({ r }) => [keyOf(r), r]));
      for (const r of list) {
        const j = judged.get(keyOf(r));
        if (j && j !== r) {
          r.fairness = j.fairness;
          r.fairness_rule = j.fairness_rule;
        }
      }
    }
  }
  return changed;
}

/** Stores re-evaluated verdicts and moves their counts in ru_fair_day (`acc`). */
export async function applyChanged(db: Db, changed: { row: AuditRow; was: { fairness: string; fairness_rule: string | null } }[], acc: FairAccumulator): Promise<void> {
  for (const { row, was } of changed) {
    await db.updateTable('games').set({ fairness: row.fairness, fairness_rule: row.fairness_rule }).where('signature', '=', row.signature).where('event_index', '=', row.event_index).execute();
    acc.add({ ...row, ...was }, -1);
    acc.add(row, 1);
  }
}

/**
 * The rebuild's audit (docs/architecture.md convention 3): every game's own rules from its raw
 * fields, its verdict from the previous settle of its player (games read in (player, slot,
 * signature, event_index) order, index g_player_order), changed rows updated; then ru_fair_day
 * refilled from the games, ru_fair_hg too, ru_fair_dg, ru_fair_user and ru_fair from ru_fair_day, and ru_fair_bg from ru_fair_dg (the caller cleared all six).
 */
export async function rebuildFairness(trx: Transaction<Database>): Promise<void> {
  const chunk = 5000;
  let at: { player: string; slot: number; signature: string; event_index: number } | undefined;
  let prev: AuditRow | null = null;
  for (;;) {
    let q = trx
      .selectFrom('games')
      .select([...AUDIT_COLUMNS, 'data', 'wager', 'payout', 'multiplier_bps'])
      .orderBy('player')
      .orderBy('slot')
      .orderBy('signature')
      .orderBy('event_index')
      .limit(chunk);
    if (at) {
      const a = at;
      q = q.where((eb) => eb(eb.refTuple('player', 'slot', 'signature', 'event_index'), '>', eb.tuple(a.player, a.slot, a.signature, a.event_index)));
    }
    const rows = await q.execute();
    if (rows.length === 0) break;
    for (const raw of rows) {
      const g = rowOf(raw);
      if (prev !== null && prev.player !== g.player) prev = null;
      const d = JSON.parse(raw.data) as { rngSeed: string; nextRngSeedHashed: string; clientSeed: string; nonce: string; bet: number[]; resultIndex: string };
      const own = ownRule({ rngSeed: d.rngSeed, clientSeed: d.clientSeed, nonce: BigInt(d.nonce), bet: d.bet, resultIndex: BigInt(d.resultIndex), multiplierBps: Number(raw.multiplier_bps), wager: BigInt(raw.wager), payout: BigInt(raw.payout) });
      const audited = { fair_own: own, seed_hash: seedHash(d.rngSeed), next_seed_hash: d.nextRngSeedHashed };
      const v = verdictOf(audited, prev);
      if (g.fair_own !== own || g.seed_hash !== audited.seed_hash || g.next_seed_hash !== audited.next_seed_hash || g.fairness !== v.fairness || g.fairness_rule !== v.rule) {
        await trx
          .updateTable('games')
          .set({ ...audited, fairness: v.fairness, fairness_rule: v.rule })
          .where('signature', '=', g.signature)
          .where('event_index', '=', g.event_index)
          .execute();
      }
      prev = { ...g, ...audited, fairness: v.fairness, fairness_rule: v.rule };
    }
    const l = rows[rows.length - 1]!;
    at = { player: l.player, slot: Number(l.slot), signature: l.signature, event_index: Number(l.event_index) };
  }
  await sql`insert into ru_fair_day (day, creator, token, pool, player, fairness, rule, games)
    select day, creator, token, pool, player, fairness, coalesce(fairness_rule, ''), count(*) from games
    group by day, creator, token, pool, player, fairness, coalesce(fairness_rule, '')`.execute(trx);
  await sql`insert into ru_fair_dg (day, creator, token, pool, fairness, rule, games)
    select day, creator, token, pool, fairness, rule, sum(games) from ru_fair_day group by day, creator, token, pool, fairness, rule`.execute(trx);
  await sql`insert into ru_fair_bg (block, creator, token, pool, fairness, rule, games)
    select day / ${sql.lit(BLOCK_DAYS)}, creator, token, pool, fairness, rule, sum(games) from ru_fair_dg group by day / ${sql.lit(BLOCK_DAYS)}, creator, token, pool, fairness, rule`.execute(trx);
  await sql`insert into ru_fair_hg (hour_ms, creator, token, pool, fairness, rule, games)
    select hour_ms, creator, token, pool, fairness, coalesce(fairness_rule, ''), count(*) from games
    group by hour_ms, creator, token, pool, fairness, coalesce(fairness_rule, '')`.execute(trx);
  await sql`insert into ru_fair_user (player, creator, token, pool, fairness, rule, games)
    select player, creator, token, pool, fairness, rule, sum(games) from ru_fair_day group by player, creator, token, pool, fairness, rule`.execute(trx);
  await sql`insert into ru_fair (creator, token, pool, fairness, rule, games)
    select creator, token, pool, fairness, rule, sum(games) from ru_fair_day group by creator, token, pool, fairness, rule`.execute(trx);
}
