/**
 * The production install (docs/deployment.md "Installing for production"), done as an operator
 * would: `npm pack` a copy of this checkout (the release tarball: dist/ built by `prepare`, the
 * lockfile as npm-shrinkwrap.json), unpack it in an empty directory, `npm ci --omit=dev` there
 * (no TypeScript compiler, no pino-pretty), then run the installed CLI (the bundle in
 * dist/bundle/, docs/architecture.md "Build"): `--version`, `keys create`, `serve --no-indexer` on
 * a fresh SQLite store answering `GET /health`, a keyed query (read by the reader threads), the
 * dashboard's page and the docs UI, SIGTERM → exit 0.
 * Slow by nature (a real install: better-sqlite3 compiles), so it runs once, in the sqlite project.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

interface Run {
  code: number | null;
  out: string;
}

/** Runs a command to its end, stdout and stderr together in `out`. */
function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = childEnv()): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += String(c)));
    child.stderr.on('data', (c) => (out += String(c)));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out }));
  });
}

/**
 * The environment of an operator's shell: this test run's own variables (vitest's, the TEST_*
 * ones, those npm sets for `npm test`'s script) are left out; npm's user configuration stays.
 */
function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(VITEST|TEST_|npm_lifecycle_|npm_package_)/.test(k) || k === 'NODE_ENV' || k === 'INIT_CWD' || k === 'DATABASE_URL') continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

function expectOk(step: string, r: Run): void {
  if (r.code !== 0) throw new Error(`${step} exited with ${r.code}:\n${r.out.slice(-4000)}`);
}

const tmp = mkdtempSync(join(tmpdir(), 'gamba-install-'));
const checkout = join(tmp, 'checkout');
const app = join(tmp, 'app');
let tarball: string;
let packedPaths: string[];
let install: Run;

beforeAll(async () => {
  // A copy of the working tree (tracked and new files, not the ignored ones such as dist/), so
  // the release is built from these sources without touching this checkout's dist/. The dev
  // dependencies the build needs are this checkout's (symlinked).
  const list = await run('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], ROOT);
  expectOk('git ls-files', list);
  for (const f of list.out.split('\0').filter(Boolean)) {
    if (!existsSync(join(ROOT, f))) continue; // deleted in the working tree, not yet committed
    mkdirSync(dirname(join(checkout, f)), { recursive: true });
    cpSync(join(ROOT, f), join(checkout, f));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(checkout, 'node_modules'), 'dir');

  expectOk('npm pack', await run('npm', ['pack', '--pack-destination', tmp], checkout));
  tarball = join(tmp, `gamba-analytics-${VERSION}.tgz`);
  const listing = await run('tar', ['-tzf', tarball], tmp);
  expectOk('tar -t', listing);
  packedPaths = listing.out.split('\n').filter(Boolean).map((p) => p.replace(/^package\//, ''));

  mkdirSync(app);
  expectOk('tar -x', await run('tar', ['-xzf', tarball, '-C', app, '--strip-components=1'], tmp));
  install = await run('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], app);
  expectOk('npm ci --omit=dev', install);
}, 1_200_000);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('production install from the packed release', () => {
  test('the tarball ships the compiled CLI and the lockfile, not the sources or tests', () => {
    const paths = packedPaths;
    for (const p of ['package.json', 'bin/gamba-analytics.js', 'dist/bundle/main.js', 'dist/bundle/worker.js', 'dist/dashboard/index.html', 'dist/cli/main.js', 'dist/store/migrate.js', 'npm-shrinkwrap.json', 'LICENSE', 'README.md']) {
      expect(paths, p).toContain(p);
    }
    expect(paths.filter((p) => /^(src|test|bench|soak)\//.test(p) || p.endsWith('.map'))).toEqual([]);
    // prepack's copy of the lockfile is removed again by postpack.
    expect(existsSync(join(checkout, 'npm-shrinkwrap.json'))).toBe(false);
  });

  test('npm ci --omit=dev installs no dev dependency, skips the build, and warns about nothing of ours', () => {
    for (const dev of ['pino-pretty', 'vitest', 'tsx', '@types/node']) {
      expect(existsSync(join(app, 'node_modules', dev)), `${dev} installed`).toBe(false);
    }
    expect(install.out).toContain('prepare: TypeScript is not installed');
    expect(install.out).not.toMatch(/EBADENGINE|install scripts not yet covered|npm error/);
    expect(existsSync(join(app, 'dist/cli/main.js'))).toBe(true);
  });

  test('gamba-analytics --version prints the package version', async () => {
    const r = await run(join(app, 'bin/gamba-analytics.js'), ['--version'], app);
    expectOk('--version', r);
    expect(r.out.trim()).toBe(VERSION);
  });

  test('serve --no-indexer on a fresh SQLite store answers /health 200, a keyed query, the dashboard and the docs, logs JSON, exits 0 on SIGTERM', async () => {
    const env = childEnv({ PORT: '0', HOST: '127.0.0.1', DATABASE_URL: `sqlite:${join(tmp, 'store', 'gamba.db')}`, LOG_LEVEL: 'info' });
    const created = await run(process.execPath, [join(app, 'bin/gamba-analytics.js'), 'keys', 'create', '--name', 'install', '--tier', 'standard', '--json'], app, env);
    expectOk('keys create', created);
    const key = (JSON.parse(created.out.trim().split('\n').pop()!) as { key: string }).key;
    const child: ChildProcess = spawn(process.execPath, [join(app, 'bin/gamba-analytics.js'), 'serve', '--no-indexer'], { cwd: app, env });
    let out = '';
    child.stdout!.on('data', (c) => (out += String(c)));
    child.stderr!.on('data', (c) => (out += String(c)));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const until = Date.now() + 60_000;
      let url: string | undefined;
      while (!url) {
        url = /listening on (http:\/\/[\d.]+:\d+)/.exec(out)?.[1];
        if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode}:\n${out}`);
        if (Date.now() > until) throw new Error(`serve did not listen within 60 s:\n${out}`);
        if (!url) await new Promise((r) => setTimeout(r, 200));
      }
      const res = await fetch(`${url}/health`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'ok' });
      // Store reads run in the reader threads, started from dist/bundle/worker.js.
      const stats = await fetch(`${url}/stats`, { headers: { 'X-API-Key': key } });
      expect(stats.status).toBe(200);
      expect(await stats.json()).toMatchObject({ plays: 0 });
      // The dashboard's files are found from the bundle (core/package-root.ts).
      const page = await fetch(`${url}/`, { headers: { Accept: 'text/html' } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('/dashboard/app.js');
      expect((await fetch(`${url}/docs`)).status).toBe(200);
      // Without pino-pretty the log lines are JSON (the banner lines are plain text by design).
      const logLines = out.split('\n').filter((l) => l.startsWith('{'));
      expect(logLines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toContain('API listening');
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 120_000);

  test('asked for pretty logs, the logger writes JSON without pino-pretty and pretty text with it', async () => {
    // A script file, not `-e`: pino's transport worker inherits the process's exec arguments.
    const probe = (name: string, entry: string) => {
      const file = join(tmp, name);
      writeFileSync(file, `const { createLogger } = await import(${JSON.stringify(pathToFileURL(entry).href)});\ncreateLogger({ pretty: true }).info({ probe: 1 }, 'pretty-probe');\n`);
      return file;
    };
    const installed = await run(process.execPath, [probe('installed-probe.mjs', join(app, 'dist/core/index.js'))], app);
    expectOk('installed logger', installed);
    expect(JSON.parse(installed.out.trim())).toMatchObject({ msg: 'pretty-probe', probe: 1 });
    // In this checkout pino-pretty is installed (dev dependency): the same call prints pretty text.
    const dev = await run(process.execPath, ['--import', 'tsx', probe('dev-probe.mjs', join(ROOT, 'src/core/index.ts'))], ROOT);
    expectOk('dev logger', dev);
    expect(dev.out).toContain('pretty-probe');
    expect(() => JSON.parse(dev.out.trim())).toThrow();
  });

  test('without dist/ (a checkout installed with --omit=dev) the launcher says how to build', async () => {
    const bare = join(tmp, 'bare');
    mkdirSync(join(bare, 'bin'), { recursive: true });
    cpSync(join(ROOT, 'bin/gamba-analytics.js'), join(bare, 'bin/gamba-analytics.js'));
    cpSync(join(ROOT, 'package.json'), join(bare, 'package.json'));
    const r = await run(process.execPath, [join(bare, 'bin/gamba-analytics.js'), '--version'], bare);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/dist\/ is missing.*npm run build/);
  });
});
