/**
 * The soak's world: a SQLite store with the test fixture's games loaded through the store's write
 * path, keys of every tier minted into it, and `serve --no-indexer` started over it as a child
 * process (or an already running service given by `--url`, whose DATABASE_URL the soak shares).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config/index.js';
import { createCommon } from '../src/core/index.js';
import { createKeyService } from '../src/keys/index.js';
import { createStore, type Store, type Tier } from '../src/store/index.js';
import { generateFixture, loadFixture } from '../test/helpers/fixture.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface SoakKey {
  id: string;
  key: string;
  tier: Tier;
  rpm: number;
  burst: number;
  name: string;
}

/**
 * The keys the soak drives: the three tiers with their docs/design.md §4 limits, and enterprise keys with
 * custom limits small enough that their buckets empty within seconds.
 */
export const KEY_PLAN: { tier: Tier; rpm?: number; burst?: number; count: number }[] = [
  { tier: 'standard', count: 4 },
  { tier: 'premium', count: 1 },
  { tier: 'enterprise', rpm: 600, burst: 20, count: 2 },
  { tier: 'enterprise', rpm: 240, burst: 10, count: 2 },
  { tier: 'enterprise', rpm: 1200, burst: 50, count: 1 },
];

/** Loads the fixture (games, pool changes, prices) through the write path, in transaction-aligned batches. */
/** The contract tests' fixture, loaded through the store's write path; returns its game count. */
export async function loadFixtureInto(store: Store, seed = 20260115): Promise<{ games: number }> {
  const f = generateFixture({ seed, games: 3000, poolChanges: 300 });
  await loadFixture(store, f);
  return { games: f.events.filter((e) => e.name === 'GameSettled').length };
}

export async function mintKeys(store: Store): Promise<SoakKey[]> {
  const service = createKeyService({ store: store.keys, clock: createCommon().clock });
  const out: SoakKey[] = [];
  for (const plan of KEY_PLAN) {
    for (let i = 0; i < plan.count; i++) {
      const name = `soak-${plan.tier}-${plan.rpm ?? 'default'}-${i}`;
      const { id, key, record } = await service.create({ name, tier: plan.tier, rpm: plan.rpm, burst: plan.burst });
      out.push({ id, key, tier: plan.tier, rpm: record.rpm, burst: record.burst, name });
    }
  }
  return out;
}

export async function revokeKeys(store: Store, keys: SoakKey[]): Promise<void> {
  const service = createKeyService({ store: store.keys, clock: createCommon().clock });
  for (const k of keys) await service.revoke(k.id);
}

/** Opens the store named by DATABASE_URL (the `--url` mode shares it with the running service). */
export async function openConfiguredStore(): Promise<Store> {
  return createStore({ common: createCommon(), config: loadConfig(process.env).store });
}

export interface ServerChild {
  url: string;
  pid: number;
  proc: ChildProcess;
  stop(): Promise<number | null>;
}

/** `serve --no-indexer` over `dbPath` on an ephemeral loopback port, from source (as the tests run the CLI). */
export async function startServeChild(dbPath: string): Promise<ServerChild> {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: `sqlite:${dbPath}`, LOG_LEVEL: 'warn' };
  const proc = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/helpers/entries/run-cli.ts'), 'serve', '--no-indexer'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (c) => (out += String(c)));
  proc.stderr!.on('data', (c) => (out += String(c)));
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start within 60 s:\n${out.slice(-2000)}`)), 60_000);
    const check = () => {
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    proc.stdout!.on('data', check);
    void exited.then((code) => reject(new Error(`serve exited (${code}) before listening:\n${out.slice(-2000)}`)));
  });
  return {
    url,
    pid: proc.pid!,
    proc,
    async stop() {
      proc.kill('SIGTERM');
      return exited;
    },
  };
}

/** Resident set size of a local process, bytes (Linux /proc); undefined elsewhere. */
export function rssOf(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}
