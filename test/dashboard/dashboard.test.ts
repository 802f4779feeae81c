/**
 * The web dashboard (docs/design.md §12) in a real browser: Debian's Chromium driven by
 * playwright-core, against the API on a real socket over a SQLite store the write path fills
 * (the demo fixture of test/helpers/fixture.ts). The bundle is built here with the build script
 * `npm run build` runs. Checked: `/` answers the page to a browser and the JSON index to JSON
 * clients; the key form; every page loads without console errors; the overview's figures equal
 * the API's /stats (fetched independently) and its charts have drawn; exact token amounts with
 * the token's decimals (an independent string formatter); sorting with the keyboard and cursor
 * paging; the live feed shows a game indexed after the page opened; light/dark; phone width.
 * Screenshots of each page go to test-results/dashboard/ (gitignored); the test never writes into
 * the repository (docs/dashboard.png, the README's, was taken of the `npm start` demo).
 *
 * Without Chromium (CHROMIUM_PATH, default /usr/bin/chromium) the suite is left out with one line
 * at the end of the run (vitest.config.ts); with CI set it fails instead.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/index.js';
import { createIndexerEvents, type IndexerEventHub } from '../../src/ingest/index.js';
import type { LocatedEvent } from '../../src/protocol/index.js';
import type { Store } from '../../src/store/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { writeAnnounced } from '../helpers/announced-writes.js';
import { generateFixture, type Fixture } from '../helpers/fixture.js';
import { setupStore } from '../helpers/store.js';

// Browser globals of the functions run in the page (page.evaluate): this project compiles without the DOM library.
declare const document: any;
declare const location: any;
declare const sessionStorage: any;
declare const window: any;
declare function getComputedStyle(e: unknown): any;
type HTMLCanvasElement = any;

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = join(process.cwd(), 'test-results', 'dashboard');
const ci = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false' && process.env.CI !== '0';

let fixture: Fixture;
let store: Store;
let hub: IndexerEventHub;
let app: TestApp;
let ctx: BrowserContext;
let profile: string;
let bundle: string;
/** Events not written yet (chain order): the live feed's new games. */
let rest: LocatedEvent[];
/** Console errors and page errors of every page, with the page's address. */
const problems: string[] = [];

/** Writes `events` in transaction-aligned batches and announces each commit, as `serve` relays the indexer's. */
async function write(events: LocatedEvent[], announce: boolean): Promise<void> {
  await writeAnnounced(store, fixture, events, announce ? hub : undefined);
}

/** The API's answer, fetched by the test itself (not through the page). */
async function api(path: string): Promise<any> {
  const res = await fetch(`${app.baseUrl}${path}`, { headers: { 'X-API-Key': app.key } });
  expect(res.status, path).toBe(200);
  return res.json();
}

/** GET `path` exactly as written (no URL normalisation: fetch would resolve `..`), over a raw socket. */
async function rawGet(path: string): Promise<{ status: number; body: string }> {
  const { host, port } = new URL(app.baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: host.split(':')[0], port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** An independent formatter of u64 strings: digits split at `decimals` by string slicing, grouped by threes. */
function expectedUnits(raw: string, decimals: number): string {
  const neg = raw.startsWith('-');
  const digits = (neg ? raw.slice(1) : raw).padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const frac = digits.slice(digits.length - decimals).replace(/0+$/, '');
  let grouped = '';
  for (let i = 0; i < whole.length; i++) grouped += (i > 0 && (whole.length - i) % 3 === 0 ? ',' : '') + whole[i];
  return (neg ? '-' : '') + grouped + (frac ? `.${frac}` : '');
}

/** Opens `hash` in a new page, waits until the page has rendered, checks there is no error shown. */
async function open(hash: string, opts: { width?: number } = {}): Promise<Page> {
  const page = await ctx.newPage();
  if (opts.width) await page.setViewportSize({ width: opts.width, height: 860 });
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`${hash}: console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`${hash}: ${e.message}`));
  await page.goto(`${app.baseUrl}/${hash}`);
  await settled(page);
  return page;
}

/** Waits for the page's render to end (main loses aria-busy) and asserts no error is shown. */
async function settled(page: Page): Promise<void> {
  await page.waitForSelector('#main:not([aria-busy]) > *', { timeout: 15_000 });
  const errors = await page.locator('#main .error').allTextContents();
  expect(errors, page.url()).toEqual([]);
}

/** Non-transparent pixels of each canvas of the page (a drawn chart has many). */
async function inkedPixels(page: Page): Promise<number[]> {
  return page.$$eval('.chart canvas', (canvases) =>
    (canvases as HTMLCanvasElement[]).map((c) => {
      const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i] !== 0) n++;
      return n;
    }),
  );
}

const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

const run = existsSync(CHROMIUM) || ci;

describe.skipIf(!run)('dashboard in Chromium', () => {
  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM} (CI is set: install it, see .ci/run)`);
    bundle = mkdtempSync(join(tmpdir(), 'gamba-dashboard-'));
    const built = spawnSync(process.execPath, ['scripts/build-dashboard.js', bundle], { encoding: 'utf8' });
    expect(built.status, built.stderr).toBe(0);
    mkdirSync(SHOTS, { recursive: true });

    fixture = generateFixture({ seed: 4242, games: 700, poolChanges: 90 });
    store = await setupStore();
    await store.upsertMints(fixture.mints);
    await store.putPrices(fixture.prices);
    // The last ~40 games are written while the live page is open.
    const gameIdx = fixture.events.map((e, i) => (e.name === 'GameSettled' ? i : -1)).filter((i) => i >= 0);
    let cut = gameIdx[gameIdx.length - 40]!;
    while (cut > 0 && fixture.events[cut]!.signature === fixture.events[cut - 1]!.signature) cut--;
    rest = fixture.events.slice(cut);
    await write(fixture.events.slice(0, cut), false);
    hub = createIndexerEvents();
    app = await buildTestApp({ store, clock: new ManualClock(fixture.nowMs), events: hub, options: { dashboard: { root: bundle }, stream: { settleMs: 50 } } });

    profile = mkdtempSync(join(tmpdir(), 'gamba-chromium-'));
    ctx = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      viewport: { width: 1280, height: 900 },
      colorScheme: 'light',
    });
    // The key a user would paste once: kept in the tab's sessionStorage (the form is tested below).
    await ctx.addInitScript((key) => {
      if (!location.hash.includes('nokey')) sessionStorage.setItem('gamba.apiKey', key);
    }, app.key);
  }, 120_000);

  afterAll(async () => {
    await ctx?.close();
    await app?.close();
    for (const d of [profile, bundle]) if (d) rmSync(d, { recursive: true, force: true });
  });

  it('GET / answers the page to a browser and the JSON index to a JSON client; the bundle is served with its own CSP', async () => {
    const html = await fetch(`${app.baseUrl}/`, { headers: { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toContain('text/html');
    expect(html.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await html.text()).toContain('/dashboard/app.js');
    const json = await fetch(`${app.baseUrl}/`, { headers: { Accept: 'application/json' } });
    expect(json.headers.get('content-type')).toContain('application/json');
    const index = (await json.json()) as Record<string, string>;
    expect(index.docs).toBe('/docs');
    expect((await fetch(`${app.baseUrl}${index.openapi}`)).status).toBe(200);
    const js = await fetch(`${app.baseUrl}/dashboard/app.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toContain('javascript');
    expect((await fetch(`${app.baseUrl}/dashboard/nope.js`)).status).toBe(404);
    // The API itself still wants its key.
    expect((await fetch(`${app.baseUrl}/stats`)).status).toBe(401);
    // Nothing a client sends under /dashboard/ reaches outside the bundle or causes a 500.
    for (const path of ['/dashboard/../package.json', '/dashboard/%2e%2e/%2e%2e/package.json', '/dashboard/%00', '/dashboard/', '/dashboard/%E0%A4%A', '/dashboard/a/b/c']) {
      const res = await rawGet(path);
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.status, path).toBeLessThan(500);
      expect(res.body, path).not.toContain('"name": "gamba-analytics"');
    }
  });

  it('asks for the key once, keeps it in sessionStorage, and the overview equals the API: figures and drawn charts', async () => {
    const page = await ctx.newPage();
    page.on('pageerror', (e) => problems.push(`key form: ${e.message}`));
    await page.goto(`${app.baseUrl}/#/nokey`);
    await page.fill('#api-key', app.key);
    await page.press('#api-key', 'Enter');
    await page.waitForSelector('#stats .card');
    await settled(page);
    expect(await page.evaluate(() => sessionStorage.getItem('gamba.apiKey'))).toBe(app.key);
    await page.close();

    const ov = await open('#/');
    const stats = await api('/stats');
    for (const key of ['plays', 'players', 'creators', 'active_players', 'usd_volume', 'revenue_usd', 'player_net_profit_usd']) {
      const value = ov.locator(`[data-testid="stat-${key}"]`);
      expect(Number(await value.getAttribute('data-value')), key).toBe(stats[key]);
      const usdKeys = ['usd_volume', 'revenue_usd', 'player_net_profit_usd'];
      const text = usdKeys.includes(key)
        ? new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 2 }).format(stats[key])
        : new Intl.NumberFormat('en-US').format(stats[key]);
      expect(await value.textContent(), key).toBe(text);
    }
    expect(stats.plays).toBeGreaterThan(500);
    const ink = await inkedPixels(ov);
    expect(ink.length).toBe(3);
    for (const n of ink) expect(n).toBeGreaterThan(500);
    // The freshness indicator shows the newest indexed slot, as the API's header says.
    const head = await fetch(`${app.baseUrl}/status`, { headers: { 'X-API-Key': app.key } });
    await ov.waitForFunction((slot) => document.getElementById('freshness')!.textContent!.includes(`slot ${slot}`), head.headers.get('x-indexed-slot'));
    await shot(ov, 'overview');

    // A window in a time zone: the figures follow /stats over that window.
    const days = (await api('/chart/plays?tz=UTC')).data.filter((p: any) => p.plays > 0);
    const from = days[Math.floor(days.length / 2)].date as string;
    await ov.fill('#w-start', from);
    await ov.selectOption('#w-tz', 'UTC');
    await ov.click('.picker button[type=submit]');
    await ov.waitForFunction((f) => location.hash.includes(`start=${f}`), from);
    await settled(ov);
    const windowed = await api(`/stats?startTime=${Date.parse(`${from}T00:00:00Z`)}`);
    expect(Number(await ov.locator('[data-testid="stat-plays"]').getAttribute('data-value'))).toBe(windowed.plays);
    expect(windowed.plays).toBeLessThan(stats.plays);
    await ov.close();
  }, 60_000);

  it('every page loads without console errors; tables sort with Enter and page with cursors; amounts use the decimals of /tokens', async () => {
    const players = await open('#/players');
    const byVolume = await api('/players?sortBy=usd_volume&limit=25');
    const th = players.locator('th', { hasText: 'Volume' });
    await th.focus();
    await players.keyboard.press('Enter');
    await players.waitForFunction(() => location.hash.includes('sortBy=usd_volume'));
    await settled(players);
    await players.waitForSelector(`tbody tr a[title="${byVolume.results[0].user}"]`);
    expect(await players.locator('th[aria-sort="descending"]').textContent()).toContain('Volume');
    // Next page: the rows of the API's next cursor.
    await players.click('text=Next →');
    const page2 = await api(`/players?sortBy=usd_volume&limit=25&cursor=${encodeURIComponent(byVolume.nextCursor)}`);
    await players.waitForSelector(`tbody tr a[title="${page2.results[0].user}"]`);
    // A focused row follows its link with Enter.
    await players.locator('tbody tr').first().focus();
    await players.keyboard.press('Enter');
    await players.waitForFunction(() => location.hash.startsWith('#/player/'));
    await settled(players);
    await shot(players, 'player');
    await players.close();

    const tokens = await open('#/tokens');
    const list = (await api('/tokens?limit=25')).results as { token: string; volume: string; decimals?: number }[];
    const decimals = new Map(fixture.mints.map((m) => [m.mint, m.decimals]));
    const cells = await tokens.$$eval('tbody tr', (rows) => rows.map((r) => [r.children[0]!.getAttribute('title') ?? r.children[0]!.querySelector('[title]')?.getAttribute('title'), r.children[3]!.textContent]));
    expect(cells.length).toBe(list.length);
    for (const t of list) {
      const row = cells.find((c) => c[0] === t.token);
      expect(row, t.token).toBeDefined();
      const d = t.decimals ?? null;
      if (d !== null) {
        expect(d).toBe(decimals.get(t.token));
        expect(row![1]).toBe(expectedUnits(t.volume, d));
      } else {
        expect(row![1]).toBe(`${expectedUnits(t.volume, 0)} units`);
      }
    }
    // Client-side sort of a column with Enter: plays ascending after two presses.
    const plays = tokens.locator('th', { hasText: 'Plays' });
    await plays.focus();
    await tokens.keyboard.press('Enter');
    await tokens.keyboard.press('Enter');
    const sortedPlays = await tokens.$$eval('tbody tr', (rows) => rows.map((r) => Number(r.children[2]!.textContent!.replace(/,/g, ''))));
    expect(sortedPlays).toEqual([...list].map((t: any) => t.plays).sort((a, b) => a - b));
    await shot(tokens, 'tokens');
    await tokens.close();

    const pools = (await api('/pools')).results;
    const creators = (await api('/platforms?days=365')).results;
    for (const [hash, name] of [
      ['#/platforms?days=365', 'platforms'],
      ['#/pools', 'pools'],
      [`#/pool/${pools[0].pool}`, 'pool'],
      [`#/platform/${creators[0].creator}`, 'platform'],
    ] as const) {
      const p = await open(hash);
      if (name === 'pool') {
        expect((await inkedPixels(p)).every((n) => n > 200)).toBe(true);
        const d = decimals.get(pools[0].token)!;
        expect(await p.locator('[data-testid="pool-liquidity"]').textContent()).toBe(expectedUnits((await api(`/pool?pool=${pools[0].pool}`)).liquidity, d));
      }
      if (name === 'platforms') {
        const titles = await p.$$eval('tbody tr td:first-child a', (as) => as.map((a) => a.getAttribute('title')));
        expect(titles).toEqual((await api('/platforms?days=365&limit=25')).results.map((r: any) => r.creator));
      }
      if (name === 'platform') expect(await p.locator('[data-testid="platform-plays"]').textContent()).toBe(new Intl.NumberFormat('en-US').format((await api(`/stats?creator=${creators[0].creator}`)).plays));
      await shot(p, name);
      await p.close();
    }
  }, 60_000);

  it('the live feed shows games indexed after the page opened', async () => {
    const live = await open('#/live');
    await live.waitForFunction(() => document.getElementById('live-status')!.textContent!.startsWith('live'));
    expect(await live.locator('#live-rows tr').count()).toBe(0);
    await write(rest, true);
    const newGames = rest.filter((e) => e.name === 'GameSettled').map((e) => e.signature);
    const last = newGames[newGames.length - 1]!;
    await live.waitForSelector(`#live-rows tr[data-signature="${last}"]`, { timeout: 15_000 });
    await live.waitForFunction((n) => document.querySelectorAll('#live-rows tr').length >= n, newGames.length);
    await new Promise((r) => setTimeout(r, 300)); // nothing more may come
    const shown = await live.$$eval('#live-rows tr', (rows) => rows.map((r) => [r.getAttribute('data-id'), r.getAttribute('data-signature')]));
    // Exactly the games written after the page opened (a transaction may settle several), each once, newest first.
    expect(new Set(shown.map((r) => r[0])).size).toBe(shown.length);
    expect(shown.map((r) => r[1])).toEqual([...newGames].reverse());
    await shot(live, 'live');
    await live.close();
  }, 40_000);

  it('dark theme by toggle, and readable at a phone width', async () => {
    const p = await open('#/', { width: 390 });
    const bg = () => p.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const light = await bg();
    await p.click('#theme');
    await settled(p);
    expect(await p.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    expect(await bg()).not.toBe(light);
    expect(await p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
    await shot(p, 'overview-phone-dark');
    await p.click('#theme');
    await p.close();
  }, 30_000);

  it('no page logged a console error', () => {
    expect(problems).toEqual([]);
  });
});
