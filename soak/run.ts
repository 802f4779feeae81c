/**
 * `npm run soak [-- --duration 60] [-- --url http://127.0.0.1:3000]` — sustained load (docs/hardening.md).
 *
 * Drives the service for a fixed time with many keys of every tier, each asking faster than its
 * token bucket allows (open loop: 1.5 × its allowance for the run, evenly spaced; at most 6
 * requests in flight per key), over a mix of operations. Then prints, per key, the 200s received against the token-bucket allowance
 * (burst + rpm × duration / 60, docs/design.md §4) — each must be within 1 %; p50/p99 latency of the first
 * and the last 10 s (flat: last p99 ≤ 1.5 × first p99, or within 5 ms); server RSS after a 10 s
 * warm-up and at the end (within 10 %). Exit code 0 when every check passes, 1 otherwise.
 *
 * Without `--url` it builds its own world (temp SQLite store + the test fixture, `serve
 * --no-indexer` as a child process). With `--url` it drives that service and mints its keys in
 * the store named by DATABASE_URL (the same the service uses; keys are revoked at the end); RSS
 * is then read from `--pid` when given. Loopback targets only; duration bounded to 10..3600 s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createCommon } from '../src/core/index.js';
import { createStore } from '../src/store/index.js';
import { type SoakKey, loadFixtureInto, mintKeys, openConfiguredStore, revokeKeys, rssOf, startServeChild } from './world.js';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '60' },
    url: { type: 'string' },
    pid: { type: 'string' },
  },
});

const durationS = Number(args.duration);
if (!Number.isFinite(durationS) || durationS < 10 || durationS > 3600) throw new Error('--duration must be 10..3600 seconds');
if (args.url !== undefined && !/^http:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?\/?$/.test(args.url)) {
  throw new Error('--url must be a loopback http:// address (the soak never sends traffic elsewhere)');
}

/** Paths the keys ask, in turn (cheap and heavier reads; a 404 path for /player is fine too). */
const PATHS = ['/stats', '/players?limit=50', '/events/settledGames?itemsPerPage=50', '/chart/plays', '/tokens', '/platforms?days=30', '/status', '/stats?startTime=0'];
const WINDOW_MS = 10_000;
const MAX_IN_FLIGHT = 6;

interface Sample {
  atMs: number;
  latencyMs: number;
  status: number;
}

function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

/**
 * Each key asks DEMAND_FACTOR × its whole allowance, evenly over the run: its bucket is then empty
 * after at most 2/3 of the run and stays empty (demand ≥ 1.5 × refill), so every token is spent
 * as soon as it exists — the condition under which "200s = burst + rpm × span / 60" holds.
 */
const DEMAND_FACTOR = 1.5;

/** One key's open-loop client (at most MAX_IN_FLIGHT outstanding). */
async function driveKey(url: string, k: SoakKey, t0: number, endAt: number, samples: Sample[]): Promise<{ ok: number; limited: number; other: number; firstAt: number; lastAt: number }> {
  const allowance = k.burst + (k.rpm * durationS) / 60;
  const intervalMs = (durationS * 1000) / (allowance * DEMAND_FACTOR);
  const dueAt = (i: number) => t0 + i * intervalMs;
  let ok = 0;
  let limited = 0;
  let other = 0;
  let inFlight = 0;
  let sent = 0;
  let firstAt = Number.NaN;
  let lastAt = Number.NaN;
  const pending = new Set<Promise<void>>();
  for (;;) {
    const now = performance.now();
    if (now >= endAt) break;
    const due = dueAt(sent);
    if (due > now) {
      await new Promise((r) => setTimeout(r, Math.min(due - now, endAt - now)));
      continue;
    }
    if (inFlight >= MAX_IN_FLIGHT) {
      await Promise.race(pending);
      continue;
    }
    const path = PATHS[sent % PATHS.length]!;
    sent++;
    inFlight++;
    const started = performance.now();
    if (Number.isNaN(firstAt)) firstAt = started;
    lastAt = started;
    const p = fetch(url + path, { headers: { 'x-api-key': k.key } })
      .then(async (res) => {
        await res.arrayBuffer();
        samples.push({ atMs: started - t0, latencyMs: performance.now() - started, status: res.status });
        if (res.status === 200 || res.status === 404) ok++;
        else if (res.status === 429) limited++;
        else other++;
      })
      .catch(() => {
        other++;
      })
      .finally(() => {
        inFlight--;
        pending.delete(p);
      });
    pending.add(p);
  }
  await Promise.all(pending);
  return { ok, limited, other, firstAt, lastAt };
}

async function main(): Promise<number> {
  let dir: string | undefined;
  let stopServer: (() => Promise<number | null>) | undefined;
  let url: string;
  let pid: number | undefined;
  const store = args.url ? await openConfiguredStore() : await (async () => {
    dir = mkdtempSync(join(tmpdir(), 'gamba-soak-'));
    const s = await createStore({ common: createCommon(), config: { kind: 'sqlite', path: join(dir, 'soak.db') } });
    const { games } = await loadFixtureInto(s);
    process.stdout.write(`soak: fixture loaded (${games} games) into ${join(dir, 'soak.db')}\n`);
    return s;
  })();
  const keys = await mintKeys(store);
  try {
    if (args.url) {
      url = args.url.replace(/\/$/, '');
      pid = args.pid ? Number(args.pid) : undefined;
    } else {
      const child = await startServeChild(join(dir!, 'soak.db'));
      url = child.url;
      pid = child.pid;
      stopServer = child.stop;
    }
    process.stdout.write(`soak: driving ${url} for ${durationS} s with ${keys.length} keys\n`);

    const durationMs = durationS * 1000;
    const samples: Sample[] = [];
    const t0 = performance.now() + 200;
    const endAt = t0 + durationMs;
    // RSS sampled every second; compared as medians of the 10 s after warm-up and of the last 10 s (one sample is GC noise).
    const rssSamples: { atMs: number; rss: number }[] = [];
    const rssTimer = setInterval(() => {
      const rss = pid ? rssOf(pid) : undefined;
      if (rss !== undefined) rssSamples.push({ atMs: performance.now() - t0, rss });
    }, 1000);
    const results = await Promise.all(keys.map((k) => driveKey(url, k, t0, endAt, samples)));
    clearInterval(rssTimer);
    const median = (xs: number[]) => (xs.length ? quantile(xs, 0.5) : undefined);
    const rssWarm = median(rssSamples.filter((x) => x.atMs >= WINDOW_MS && x.atMs < 2 * WINDOW_MS).map((x) => x.rss));
    const rssEnd = median(rssSamples.filter((x) => x.atMs >= durationMs - WINDOW_MS).map((x) => x.rss));

    // ── figures ──
    const rows: string[][] = [['key', 'tier', 'rpm', 'burst', 'expected', '200s', '429s', 'other', 'diff %', 'ok']];
    let pass = true;
    keys.forEach((k, i) => {
      const r = results[i]!;
      // The bucket starts full at the key's first request and refills until its last one.
      const spanS = (r.lastAt - r.firstAt) / 1000;
      const expected = k.burst + (k.rpm * spanS) / 60;
      const diff = ((r.ok - expected) / expected) * 100;
      const ok = Math.abs(diff) <= 1 && r.other === 0;
      pass &&= ok;
      rows.push([k.name, k.tier, String(k.rpm), String(k.burst), expected.toFixed(1), String(r.ok), String(r.limited), String(r.other), diff.toFixed(2), ok ? 'yes' : 'NO']);
    });
    printTable(rows);

    const first = samples.filter((s) => s.atMs < WINDOW_MS).map((s) => s.latencyMs);
    const last = samples.filter((s) => s.atMs >= durationMs - WINDOW_MS).map((s) => s.latencyMs);
    const p99First = quantile(first, 0.99);
    const p99Last = quantile(last, 0.99);
    const flat = p99Last <= p99First * 1.5 || p99Last - p99First <= 5;
    pass &&= flat;
    const rssOk = rssWarm === undefined || rssEnd === undefined ? undefined : Math.abs(rssEnd - rssWarm) / rssWarm <= 0.1;
    if (rssOk === false) pass = false;
    const mb = (b: number | undefined) => (b === undefined ? 'n/a' : `${(b / 1048576).toFixed(1)} MB`);
    printTable([
      ['figure', 'first 10 s', 'last 10 s', 'ok'],
      ['requests', String(first.length), String(last.length), ''],
      ['p50 latency', `${quantile(first, 0.5).toFixed(2)} ms`, `${quantile(last, 0.5).toFixed(2)} ms`, ''],
      ['p99 latency', `${p99First.toFixed(2)} ms`, `${p99Last.toFixed(2)} ms`, flat ? 'yes' : 'NO'],
      ['server RSS (10–20 s / last 10 s, medians)', mb(rssWarm), mb(rssEnd), rssOk === undefined ? 'n/a' : rssOk ? 'yes' : 'NO'],
    ]);
    const total = samples.length;
    process.stdout.write(`soak: ${total} requests in ${durationS} s (${(total / durationS).toFixed(0)}/s); ${pass ? 'PASS' : 'FAIL'}\n`);
    return pass ? 0 : 1;
  } finally {
    if (args.url) await revokeKeys(store, keys);
    await store.close();
    if (stopServer) await stopServer();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

function printTable(rows: string[][]): void {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  const line = (r: string[]) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ');
  process.stdout.write(`\n${line(rows[0]!)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n${rows.slice(1).map(line).join('\n')}\n\n`);
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`soak failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
