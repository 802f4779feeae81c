/**
 * Write-path throughput probe (not a test; docs/benchmarks.md asks for a measured figure, not a timed
 * assertion): `npx tsx bench/write-rate.ts [games] [batch]` loads a generated fixture through
 * `store.writeBatch` into a fresh SQLite file (prices first) and prints games/s.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCommon } from '../src/core/index.js';
import { createStore } from '../src/store/index.js';
import { generateFixture } from '../test/helpers/fixture.js';

const games = Number(process.argv[2] ?? 50_000);
const batchSize = Number(process.argv[3] ?? 1000);
const dir = mkdtempSync(join(tmpdir(), 'gamba-write-rate-'));
const store = await createStore({ common: createCommon(), config: { kind: 'sqlite', path: join(dir, 'gamba.db') } });
const f = generateFixture({ seed: 7, games, poolChanges: Math.round(games / 20) });
await store.upsertMints(f.mints);
// Experiments: DROP_INDEXES=g_%_profit drops matching indexes before loading (SQLite LIKE pattern).
if (process.env.DROP_INDEXES) {
  const BetterSqlite3 = (await import('better-sqlite3')).default;
  const raw = new BetterSqlite3(join(dir, 'gamba.db'));
  const names = raw.prepare(`select name from sqlite_master where type = 'index' and name like ?`).all(process.env.DROP_INDEXES) as { name: string }[];
  for (const { name } of names) raw.exec(`drop index ${name}`);
  raw.close();
  console.log(`dropped ${names.map((n) => n.name).join(', ')}`);
}
await store.putPrices(f.prices);
const bySig = new Map(f.signatures.map((s) => [s.signature, s]));
const t0 = performance.now();
const cpu0 = process.cpuUsage();
let n = 0;
for (let i = 0; i < f.events.length; i += batchSize) {
  const events = f.events.slice(i, i + batchSize);
  const sigs = [...new Set(events.map((e) => e.signature))].map((s) => bySig.get(s)!);
  const r = await store.writeBatch({ events, signatures: sigs, state: { 'perf.cursor': String(i) } });
  n += r.gamesInserted;
}
const s = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
const cpuS = (cpu.user + cpu.system) / 1e6;
console.log(`${n} games (${f.events.length} events) in ${s.toFixed(2)} s: ${Math.round(n / s)} games/s wall, ${Math.round(n / cpuS)} games/s per CPU-second; file ${(statSync(join(dir, 'gamba.db')).size / 1e6).toFixed(1)} MB`);
await store.close();
rmSync(dir, { recursive: true, force: true });
