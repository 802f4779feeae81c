import { spawn, type ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/**
 * Benchmark child processes: the API server, the bare Fastify hello-world and the chain
 * simulator each run in their own Node process, so autocannon (in the bench process) never
 * shares a thread with the server it measures, and RSS is the server's own.
 */
export interface Child {
  pid: number;
  /** The first stdout line matching the `ready` pattern, as matched. */
  ready: RegExpMatchArray;
  /** ms from spawn to that line. */
  startupMs: number;
  /** Resolves with the next stdout line matching `re` (after the ready line). */
  waitLine(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resident set size now, bytes (Linux /proc; 0 elsewhere). */
  rss(): number;
  /** Peak resident set size (VmHWM), bytes. */
  peakRss(): number;
  /** Resolves when the process has exited. */
  exited: Promise<void>;
  /** Sends SIGTERM and waits for the exit (SIGKILL after 10 s). */
  stop(): Promise<void>;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function procStatus(pid: number, field: string): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export interface SpawnOptions {
  /** Script path relative to the repository root, run with `node --import tsx` (plain `node` when `compiled`). */
  script: string;
  /** The script is JavaScript (e.g. `bin/gamba-analytics.js` over dist/): run without tsx. */
  compiled?: boolean;
  args?: string[];
  env?: Record<string, string | undefined>;
  /** A stdout line that says the child is ready (its groups are returned). */
  ready: RegExp;
  timeoutMs?: number;
  /** Extra node flags (e.g. --cpu-prof). */
  nodeArgs?: string[];
}

export async function spawnChild(o: SpawnOptions): Promise<Child> {
  const t0 = performance.now();
  const child: ChildProcess = spawn(process.execPath, [...(o.nodeArgs ?? []), ...(o.compiled ? [] : ['--import', 'tsx']), o.script, ...(o.args ?? [])], {
    cwd: ROOT,
    env: { ...process.env, ...o.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = createInterface({ input: child.stdout! });
  const ready = await new Promise<RegExpMatchArray>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${o.script} not ready within ${o.timeoutMs ?? 120_000} ms\n${stderr}`));
    }, o.timeoutMs ?? 120_000);
    lines.on('line', (line) => {
      const m = o.ready.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${o.script} exited with ${code} before it was ready\n${stderr}`));
    });
  });
  // Keep draining stdout so the child never blocks on a full pipe; later lines go to waiters.
  const waiters = new Set<(line: string) => void>();
  lines.on('line', (line) => {
    for (const w of [...waiters]) w(line);
  });
  const waitLine = (re: RegExp, timeoutMs = 600_000) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(w);
        reject(new Error(`${o.script}: no line matching ${re} within ${timeoutMs} ms\n${stderr}`));
      }, timeoutMs);
      const onExit = (code: number | null) => {
        clearTimeout(timer);
        waiters.delete(w);
        reject(new Error(`${o.script} exited with ${code}\n${stderr}`));
      };
      function w(line: string) {
        const m = re.exec(line);
        if (!m) return;
        clearTimeout(timer);
        waiters.delete(w);
        child.off('exit', onExit);
        resolve(m);
      }
      waiters.add(w);
      child.once('exit', onExit);
    });
  const pid = child.pid!;
  return {
    pid,
    ready,
    startupMs: performance.now() - t0,
    waitLine,
    exited,
    rss: () => procStatus(pid, 'VmRSS'),
    peakRss: () => procStatus(pid, 'VmHWM'),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    },
  };
}

/**
 * How the API server children run: by default the compiled CLI, `bin/gamba-analytics.js` over
 * dist/, exactly what `npm start` runs (docs/benchmarks.md "What runs where"); with `--api-tsx`
 * the same CLI from sources under tsx (`bench/entries/cli.ts`), as earlier benchmarks ran it.
 */
export interface ApiEntry {
  script: string;
  compiled: boolean;
  /** Node flags of the API children (`--api-node-flags`). */
  nodeArgs?: string[];
}

/** The compiled CLI (as users run it). */
export const API_DIST: ApiEntry = { script: 'bin/gamba-analytics.js', compiled: true };
/** The CLI from sources under tsx (`--api-tsx`). */
export const API_TSX: ApiEntry = { script: 'bench/entries/cli.ts', compiled: false };

/** Newest modification time (ms) of the files under `dir`, 0 when there are none. */
function newestMtimeMs(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    newest = Math.max(newest, statSync(join(e.parentPath, e.name)).mtimeMs);
  }
  return newest;
}

/**
 * Makes dist/ current for the compiled API children: when dist/bundle/main.js (what
 * bin/gamba-analytics.js runs) is missing or older than any file under src/, runs the server part
 * of `npm run build` (`tsc -p tsconfig.build.json`, then scripts/bundle-cli.js; the dashboard and
 * the client package are not needed to serve the API). Returns whether it built.
 */
export function ensureBuilt(log: (m: string) => void): boolean {
  const main = join(ROOT, 'dist', 'bundle', 'main.js');
  if (existsSync(main) && statSync(main).mtimeMs >= newestMtimeMs(join(ROOT, 'src'))) return false;
  log('dist/ is missing or older than src/: building it (tsc -p tsconfig.build.json, scripts/bundle-cli.js)…');
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'bundle-cli.js')], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  return true;
}
