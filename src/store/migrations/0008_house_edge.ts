import { sql, type Kysely } from 'kysely';
import type { MigrationDialect as DialectAdapter } from './dialect.js';

/**
 * House edge as a bounded read (docs/design.md §10, GET /house-edge):
 * - games gains `expected_payout` (⌊wager × Σbet / (10000 × bet.length)⌋ as decimal text, exact;
 *   0 for an empty bet table), its 32-bit halves `expected_hi`/`expected_lo`, and `game_kind`
 *   (metadata `0:<gameId>:…` → gameId when 1..64 characters, else 'unknown'), filled here from
 *   games.data (the stored GameSettled `bet` and `metadata`).
 * - every game rollup gains `wins` (games with payout > wager) and Σ expected payout halves,
 *   filled from the games.
 * - ru_day_game: per UTC day × game kind × creator × token × pool, every game sum: the house
 *   edge of any window without a player, game kind as a filter and a grouping.
 * The rules are frozen copies (docs/architecture.md convention 12: a migration imports no live
 * code); src/store/edge.ts is the write path's.
 */
export function migration0008(a: DialectAdapter) {
  const big = a.bigint;
  const dbl = a.double;
  // Every game rollup before this migration, with its key columns.
  const GAME_ROLLUPS: [string, string[]][] = [
    ['ru_daily', ['day', 'creator', 'token', 'pool', 'player']],
    ['ru_day', ['day']],
    ['ru_day_c', ['day', 'creator']],
    ['ru_pool_day', ['pool', 'day', 'token']],
    ['ru_ctp', ['creator', 'token', 'pool']],
    ['ru_user_ctp', ['player', 'creator', 'token', 'pool']],
    ['ru_user', ['player']],
    ['ru_user_c', ['player', 'creator']],
    ['ru_user_t', ['player', 'token']],
    ['ru_user_tp', ['player', 'token', 'pool']],
    ['ru_user_ct', ['player', 'creator', 'token']],
    ['ru_day_user', ['day', 'player']],
    ['ru_block_user', ['block', 'player']],
  ];
  const WIN = '(case when payout_hi > wager_hi or (payout_hi = wager_hi and payout_lo > wager_lo) then 1 else 0 end)';
  const TWO_32 = 4294967296n;

  const kindOf = (metadata: unknown): string => {
    if (typeof metadata !== 'string' || !metadata.startsWith('0:')) return 'unknown';
    const id = metadata.slice(2).split(':', 1)[0]!;
    return id.length >= 1 && id.length <= 64 ? id : 'unknown';
  };
  const expectedOf = (wager: bigint, bet: unknown): bigint => {
    if (!Array.isArray(bet) || bet.length === 0) return 0n;
    let total = 0n;
    for (const b of bet) total += BigInt(b as number);
    return (wager * total) / (10000n * BigInt(bet.length));
  };

  const fill = async (db: Kysely<any>): Promise<void> => {
    // The games, from their stored bet and metadata, in keyset chunks.
    let after: [string, number] | undefined;
    for (;;) {
      const page = await sql<{ signature: string; event_index: number; wager: string; data: string }>`select signature, event_index, wager, data from games
        ${after ? sql`where signature > ${after[0]} or (signature = ${after[0]} and event_index > ${after[1]})` : sql``}
        order by signature, event_index limit 250`.execute(db);
      if (page.rows.length === 0) break;
      // One UPDATE … FROM per chunk of 250 (SQLite allows 500 compound selects; both engines); the first select names the columns, casts type
      // the bound values (PostgreSQL binds them as untyped text).
      const values = page.rows.map((r, i) => {
        const data = JSON.parse(r.data) as { bet?: unknown; metadata?: unknown };
        const x = expectedOf(BigInt(r.wager), data.bet);
        const as = (name: string) => sql.raw(i === 0 ? ` as ${name}` : '');
        return sql`select cast(${r.signature} as text)${as('sig')}, cast(${Number(r.event_index)} as integer)${as('idx')},
          cast(${x.toString()} as text)${as('x')}, cast(${Number(x / TWO_32)} as ${sql.raw(big)})${as('hi')},
          cast(${Number(x % TWO_32)} as ${sql.raw(big)})${as('lo')}, cast(${kindOf(data.metadata)} as text)${as('k')}`;
      });
      await sql`update games set expected_payout = v.x, expected_hi = v.hi, expected_lo = v.lo, game_kind = v.k
        from (${sql.join(values, sql` union all `)}) v
        where games.signature = v.sig and games.event_index = v.idx`.execute(db);
      const last = page.rows[page.rows.length - 1]!;
      after = [last.signature, Number(last.event_index)];
    }
    // Every game rollup's new sums, per key.
    for (const [t, keys] of GAME_ROLLUPS) {
      const exprs = keys.map((k) => (k === 'block' ? 'day / 32 as block' : k)).join(', ');
      const groups = keys.map((k) => (k === 'block' ? 'day / 32' : k)).join(', ');
      const on = keys.map((k) => `${t}.${k} = s.${k}`).join(' and ');
      await sql.raw(`update ${t} set wins = s.wins, expected_hi = s.expected_hi, expected_lo = s.expected_lo
        from (select ${exprs}, sum(${WIN}) as wins, sum(expected_hi) as expected_hi, sum(expected_lo) as expected_lo from games group by ${groups}) s
        where ${on}`).execute(db);
    }
    await sql.raw(`insert into ru_day_game (day, game_kind, creator, token, pool, plays, jackpots, wager_hi, wager_lo, payout_hi, payout_lo, jackpot_hi, jackpot_lo,
        usd_wager, usd_profit, usd_creator_fee, usd_gamba_fee, usd_net, wins, expected_hi, expected_lo, max_usd_profit, min_usd_profit, first_ms, last_ms)
      select day, game_kind, creator, token, pool, count(*), sum(is_jackpot), sum(wager_hi), sum(wager_lo), sum(payout_hi), sum(payout_lo), sum(jackpot_hi), sum(jackpot_lo),
        sum(usd_wager), sum(usd_profit), sum(usd_creator_fee), sum(usd_gamba_fee), sum(usd_net), sum(${WIN}), sum(expected_hi), sum(expected_lo),
        case when max(usd_profit) > 0 then max(usd_profit) else 0 end, case when min(usd_profit) < 0 then min(usd_profit) else 0 end,
        min(time_ms), max(time_ms)
      from games group by day, game_kind, creator, token, pool`).execute(db);
  };

  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('games').addColumn('expected_payout', a.text, (c) => c.notNull().defaultTo('0')).execute();
      await db.schema.alterTable('games').addColumn('expected_hi', big, (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('games').addColumn('expected_lo', big, (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('games').addColumn('game_kind', a.text, (c) => c.notNull().defaultTo('unknown')).execute();
      for (const [t] of GAME_ROLLUPS) {
        for (const c of ['wins', 'expected_hi', 'expected_lo']) await db.schema.alterTable(t).addColumn(c, big, (col) => col.notNull().defaultTo(0)).execute();
      }
      let t = db.schema
        .createTable('ru_day_game')
        .addColumn('day', 'integer', (c) => c.notNull())
        .addColumn('game_kind', a.text, (c) => c.notNull())
        .addColumn('creator', a.text, (c) => c.notNull())
        .addColumn('token', a.text, (c) => c.notNull())
        .addColumn('pool', a.text, (c) => c.notNull());
      for (const c of ['plays', 'jackpots', 'wager_hi', 'wager_lo', 'payout_hi', 'payout_lo', 'jackpot_hi', 'jackpot_lo']) t = t.addColumn(c, big, (col) => col.notNull());
      for (const c of ['usd_wager', 'usd_profit', 'usd_creator_fee', 'usd_gamba_fee', 'usd_net']) t = t.addColumn(c, dbl, (col) => col.notNull());
      for (const c of ['wins', 'expected_hi', 'expected_lo']) t = t.addColumn(c, big, (col) => col.notNull());
      for (const c of ['max_usd_profit', 'min_usd_profit']) t = t.addColumn(c, dbl, (col) => col.notNull());
      for (const c of ['first_ms', 'last_ms']) t = t.addColumn(c, big, (col) => col.notNull());
      await t.addPrimaryKeyConstraint('ru_day_game_pk', ['day', 'game_kind', 'creator', 'token', 'pool']).execute();

      if (db.isTransaction) await fill(db);
      else await db.transaction().execute((trx) => fill(trx));
    },
    async down(): Promise<void> {
      throw new Error('migrations are append-only; restore from backup to go back');
    },
  };
}
