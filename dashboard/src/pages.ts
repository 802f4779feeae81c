/** The dashboard's pages, one function per hash route; each renders into `main`. */
import { get, stream, tokenDecimals, withQuery } from './api.js';
import { ago, formatUnits, int, short, time, usd } from './format.js';
import { card, chart, h, link, pager, table, type Column } from './ui.js';

/** A page: renders into `main`; `params` are the hash's query, `arg` the path segment after the page name. */
export type Page = (main: HTMLElement, arg: string | undefined, params: URLSearchParams, signal: AbortSignal) => Promise<void>;

const player = (u: string) => link(`#/player/${u}`, short(u), u);
const platform = (c: string) => link(`#/platform/${c}`, short(c), c);
const pool = (p: string) => link(`#/pool/${p}`, short(p), p);
const mint = (t: string | null) => (t ? h('span', { title: t }, short(t)) : '—');

/** Offset of `tz` from UTC at `ms`, in ms (Intl, no library). */
function tzOffsetMs(ms: number, tz: string): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' }).formatToParts(new Date(ms));
  const v = (t: string) => Number(parts.find((p) => p.type === t)!.value);
  return Date.UTC(v('year'), v('month') - 1, v('day'), v('hour'), v('minute'), v('second')) - Math.floor(ms / 1000) * 1000;
}

/** Midnight of the date `yyyy-mm-dd` in `tz`, as Unix ms. */
export function zonedMidnight(date: string, tz: string): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const guess = Date.UTC(y, m - 1, d);
  let ms = guess - tzOffsetMs(guess, tz);
  ms = guess - tzOffsetMs(ms, tz);
  return ms;
}

const browserTz = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** The window pickers (start date, end date exclusive, time zone), kept in the hash's query. */
function windowPicker(params: URLSearchParams): HTMLElement {
  const start = h('input', { type: 'date', id: 'w-start', value: params.get('start') ?? '' });
  const end = h('input', { type: 'date', id: 'w-end', value: params.get('end') ?? '' });
  const zones = [...new Set([browserTz, 'UTC', 'America/New_York', 'Europe/London', 'Europe/Berlin', 'Asia/Tokyo', 'Asia/Singapore', 'Australia/Sydney'])];
  const tz = h('select', { id: 'w-tz' }, ...zones.map((z) => h('option', { value: z, selected: (params.get('tz') ?? browserTz) === z }, z)));
  const apply = h('button', { type: 'submit' }, 'Apply');
  const form = h('form', { class: 'picker', 'aria-label': 'Window and time zone' },
    h('label', {}, 'From ', start), h('label', {}, 'To (excl.) ', end), h('label', {}, 'Time zone ', tz), apply);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const q = new URLSearchParams();
    if (start.value) q.set('start', start.value);
    if (end.value) q.set('end', end.value);
    q.set('tz', tz.value);
    location.hash = `#/?${q}`;
  });
  return form;
}

/** startTime/endTime/tz of the API from the pickers' values. */
function windowQuery(params: URLSearchParams): { startTime?: number; endTime?: number; tz: string } {
  const tz = params.get('tz') ?? browserTz;
  const s = params.get('start');
  const e = params.get('end');
  return { tz, startTime: s ? zonedMidnight(s, tz) : undefined, endTime: e ? zonedMidnight(e, tz) : undefined };
}

function errorBox(err: unknown): HTMLElement {
  return h('p', { class: 'error', role: 'alert' }, String((err as Error).message ?? err));
}

/** Overview: /stats figures, then plays, USD volume and DAO fees per day (/chart/*), in the picked window and zone. */
export const overview: Page = async (main, _arg, params) => {
  const w = windowQuery(params);
  main.append(h('h1', {}, 'Overview'), windowPicker(params));
  const cards = h('div', { class: 'cards', id: 'stats' });
  const charts = h('div', { class: 'charts' });
  main.append(cards, charts);
  const stats = await get('/stats', { startTime: w.startTime, endTime: w.endTime });
  const figures: [string, string, string][] = [
    ['plays', 'Plays', int(stats.plays)],
    ['players', 'Players', int(stats.players)],
    ['active_players', 'Active players (24 h)', int(stats.active_players)],
    ['creators', 'Platforms', int(stats.creators)],
    ['usd_volume', 'Volume', usd(stats.usd_volume)],
    ['revenue_usd', 'Revenue', usd(stats.revenue_usd)],
    ['player_net_profit_usd', 'Players net profit', usd(stats.player_net_profit_usd)],
    ['first_bet_time', 'First bet', time(stats.first_bet_time, w.tz)],
  ];
  for (const [key, label, text] of figures) {
    const c = card(label, text, `stat-${key}`);
    c.querySelector('.value')!.setAttribute('data-value', String(stats[key]));
    cards.append(c);
  }
  const series = { startTime: w.startTime, endTime: w.endTime, tz: w.tz };
  const [plays, vol, dao] = await Promise.all([get('/chart/plays', series), get('/chart/daily-usd', series), get('/chart/dao-usd', series)]);
  // Without a picked start, the series begin at the first day with a play (not at the
  // series' default span, which can reach back before the indexed history).
  const first = w.startTime === undefined ? (plays.data.find((p: any) => p.plays > 0)?.time ?? -Infinity) : -Infinity;
  const from = <T extends { time: number }>(d: T[]): T[] => d.filter((p) => p.time >= first);
  const [pd, vd, dd] = [from(plays.data), from(vol.data), from(dao.data)];
  const t = (d: { time: number }[]) => d.map((p) => p.time);
  chart(charts, 'Plays per day', t(pd), pd.map((p: any) => p.plays), { bars: true, tz: w.tz });
  chart(charts, 'USD volume per day', t(vd), vd.map((p: any) => p.volume_usd), { tz: w.tz, format: compactUsd });
  chart(charts, 'DAO fees per day (USD)', t(dd), dd.map((p: any) => p.dao_fees_usd), { tz: w.tz, format: compactUsd });
};

const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });
function compactUsd(v: number): string {
  return '$' + compact.format(v);
}

/** A cursor-paged, server-sorted listing page. */
function listing<T>(title: string, path: string, cols: (dec: Map<string, number | null>) => Column<T>[], opts: { sorts: string[]; defaultSort: string; extra?: (params: URLSearchParams) => Record<string, string | number>; controls?: (params: URLSearchParams) => HTMLElement; rowLink?: (r: T) => string }): Page {
  return async (main, _arg, params) => {
    const sortBy = params.get('sortBy') ?? opts.defaultSort;
    main.append(h('h1', {}, title));
    if (opts.controls) main.append(opts.controls(params));
    const body = h('div', { class: 'listing' });
    main.append(body);
    const dec = await tokenDecimals();
    const state = { stack: [undefined] as (string | undefined)[] };
    const load = async (cursor: string | undefined): Promise<void> => {
      const page = await get<{ results: T[]; nextCursor: string | null }>(path, { limit: 25, sortBy: opts.sorts.length ? sortBy : undefined, cursor, ...opts.extra?.(params) });
      const onSort = (key: string) => (location.hash = withQuery(location.hash.split('?')[0]!, { ...Object.fromEntries(params), sortBy: key }));
      body.replaceChildren(table(page.results, cols(dec), { rowLink: opts.rowLink, sortedBy: sortBy, onSort }), pager(state, page.nextCursor, (c) => void load(c).catch((e) => body.append(errorBox(e)))));
    };
    await load(undefined);
  };
}

interface PlayerRow { user: string; total_plays: number; usd_volume: number; usd_profit: number; biggest_win_usd: number; last_play: number }
/** Players leaderboard (/players), sorted by USD profit or volume. */
export const players = listing<PlayerRow>('Players', '/players', () => [
  { title: 'Player', cell: (r) => player(r.user) },
  { title: 'Plays', cell: (r) => int(r.total_plays), sort: (r) => r.total_plays, numeric: true },
  { title: 'Volume', cell: (r) => usd(r.usd_volume), sortKey: 'usd_volume', numeric: true },
  { title: 'Profit', cell: (r) => usd(r.usd_profit), sortKey: 'usd_profit', numeric: true },
  { title: 'Biggest win', cell: (r) => usd(r.biggest_win_usd), sort: (r) => r.biggest_win_usd, numeric: true },
  { title: 'Last play', cell: (r) => time(r.last_play), sort: (r) => r.last_play },
], { sorts: ['usd_profit', 'usd_volume'], defaultSort: 'usd_profit', rowLink: (r) => `#/player/${r.user}` });

interface PlatformRow { creator: string; usd_volume: number; usd_revenue: number; plays: number; unique_players: number; last_activity: number }
const PLATFORM_DAYS = ['7', '30', '90', '365'];
const platformDays = (params: URLSearchParams): string => (PLATFORM_DAYS.includes(params.get('days') ?? '') ? params.get('days')! : '30');

/** The rolling window of /platforms (`days`), kept in the hash's query. */
function daysPicker(params: URLSearchParams): HTMLElement {
  const sel = h('select', { id: 'days' }, ...PLATFORM_DAYS.map((d) => h('option', { value: d, selected: platformDays(params) === d }, `last ${d} days`)));
  sel.addEventListener('change', () => (location.hash = withQuery('#/platforms', { ...Object.fromEntries(params), days: sel.value })));
  return h('div', { class: 'picker' }, h('label', {}, 'Window ', sel));
}

/** Platforms leaderboard (/platforms over a rolling window of days), sorted by USD volume or revenue. */
export const platforms = listing<PlatformRow>('Platforms', '/platforms', () => [
  { title: 'Platform', cell: (r) => platform(r.creator) },
  { title: 'Volume', cell: (r) => usd(r.usd_volume), sortKey: 'usd_volume', numeric: true },
  { title: 'Revenue', cell: (r) => usd(r.usd_revenue), sortKey: 'usd_revenue', numeric: true },
  { title: 'Plays', cell: (r) => int(r.plays), sort: (r) => r.plays, numeric: true },
  { title: 'Players', cell: (r) => int(r.unique_players), sort: (r) => r.unique_players, numeric: true },
  { title: 'Last activity', cell: (r) => time(r.last_activity), sort: (r) => r.last_activity },
], { sorts: ['usd_volume', 'usd_revenue'], defaultSort: 'usd_volume', extra: (p) => ({ days: platformDays(p) }), controls: daysPicker, rowLink: (r) => `#/platform/${r.creator}` });

interface TokenRow { token: string; plays: number; volume: string; usd_volume: number }
const tokenCols = (dec: Map<string, number | null>): Column<TokenRow>[] => [
  { title: 'Token', cell: (r) => mint(r.token) },
  { title: 'Decimals', cell: (r) => dec.get(r.token) ?? '—', numeric: true },
  { title: 'Plays', cell: (r) => int(r.plays), sort: (r) => r.plays, numeric: true },
  { title: 'Volume', cell: (r) => formatUnits(r.volume, dec.get(r.token)), sort: (r) => BigInt(r.volume), numeric: true },
  { title: 'Volume (USD)', cell: (r) => usd(r.usd_volume), sort: (r) => r.usd_volume, numeric: true },
];
/** Tokens (/tokens): exact volumes in token units. */
export const tokens = listing<TokenRow>('Tokens', '/tokens', tokenCols, { sorts: [], defaultSort: '' });

interface PoolRow { pool: string; token: string; liquidity: string; lp_price: number | null; tvl_usd: number | null; plays: number; usd_volume: number; pool_fees: string }
/** Pools (/pools), sorted by TVL, volume or plays. */
export const pools = listing<PoolRow>('Pools', '/pools', (dec) => [
  { title: 'Pool', cell: (r) => pool(r.pool) },
  { title: 'Token', cell: (r) => mint(r.token) },
  { title: 'Liquidity', cell: (r) => formatUnits(r.liquidity, dec.get(r.token)), sort: (r) => BigInt(r.liquidity), numeric: true },
  { title: 'LP price', cell: (r) => (r.lp_price === null ? '—' : r.lp_price.toFixed(6)), sort: (r) => r.lp_price, numeric: true },
  { title: 'TVL', cell: (r) => usd(r.tvl_usd), sortKey: 'tvl_usd', numeric: true },
  { title: 'Plays', cell: (r) => int(r.plays), sortKey: 'plays', numeric: true },
  { title: 'Volume', cell: (r) => usd(r.usd_volume), sortKey: 'usd_volume', numeric: true },
], { sorts: ['tvl_usd', 'usd_volume', 'plays'], defaultSort: 'tvl_usd', rowLink: (r) => `#/pool/${r.pool}` });

interface GameRow { signature: string; user: string; creator: string; token: string; wager: string; payout: string; usd_wager: number; usd_profit: number; multiplier: number; time: number }
const gameCols = (dec: Map<string, number | null>): Column<GameRow>[] => [
  { title: 'Time', cell: (r) => time(r.time), sort: (r) => r.time },
  { title: 'Player', cell: (r) => player(r.user) },
  { title: 'Platform', cell: (r) => platform(r.creator) },
  { title: 'Wager', cell: (r) => formatUnits(r.wager, dec.get(r.token)), numeric: true },
  { title: 'Payout', cell: (r) => formatUnits(r.payout, dec.get(r.token)), numeric: true },
  { title: 'Token', cell: (r) => mint(r.token) },
  { title: '×', cell: (r) => r.multiplier, sort: (r) => r.multiplier, numeric: true },
  { title: 'Profit (USD)', cell: (r) => usd(r.usd_profit), sort: (r) => r.usd_profit, numeric: true },
];

/** Settled games matching `filter`, cursor-paged. */
async function games(into: HTMLElement, filter: Record<string, string>): Promise<void> {
  const dec = await tokenDecimals();
  const state = { stack: [undefined] as (string | undefined)[] };
  const box = h('div');
  into.append(h('h2', {}, 'Games'), box);
  const load = async (cursor: string | undefined): Promise<void> => {
    const page = await get('/events/settledGames', { ...filter, itemsPerPage: 20, cursor });
    box.replaceChildren(table<GameRow>(page.results, gameCols(dec)), pager(state, page.nextCursor, (c) => void load(c).catch((e) => box.append(errorBox(e)))));
  };
  await load(undefined);
}

/** One player (/player) and their games. */
export const playerPage: Page = async (main, user) => {
  if (!user) throw new Error('no player address in the address bar');
  main.append(h('h1', {}, 'Player ', h('code', {}, user)));
  const p = await get('/player', { user });
  main.append(h('div', { class: 'cards' },
    card('Plays', int(p.total_plays), 'player-plays'), card('Volume', usd(p.total_volume_usd)), card('Profit', usd(p.total_profit_usd)),
    card('Biggest win', usd(p.biggest_win_usd)), card('Biggest loss', usd(p.biggest_loss_usd)), card('Favourite token', mint(p.favorite_token)),
    card('First play', time(p.first_play)), card('Last play', time(p.last_play))));
  await games(main, { user });
};

/** One platform (creator): /stats and USD volume per day for it, its tokens and games. */
export const platformPage: Page = async (main, creator) => {
  if (!creator) throw new Error('no platform address in the address bar');
  main.append(h('h1', {}, 'Platform ', h('code', {}, creator)));
  const [s, vol] = await Promise.all([get('/stats', { creator }), get('/chart/daily-usd', { creator, tz: browserTz })]);
  main.append(h('div', { class: 'cards' }, card('Plays', int(s.plays), 'platform-plays'), card('Players', int(s.players)), card('Volume', usd(s.usd_volume)), card('Revenue', usd(s.revenue_usd))));
  const charts = h('div', { class: 'charts' });
  main.append(charts);
  chart(charts, 'USD volume per day', vol.data.map((p: any) => p.time), vol.data.map((p: any) => p.volume_usd), { tz: browserTz, format: compactUsd });
  const dec = await tokenDecimals();
  const t = await get('/tokens', { creator, limit: 100 });
  main.append(h('h2', {}, 'Tokens'), table<TokenRow>(t.results, tokenCols(dec)));
  await games(main, { creator });
};

interface ChangeRow { signature: string; action: string; user: string; amount: string; post_liquidity: string; lp_supply: string; usd_amount: number | null; time: number; token: string }

/** One pool: /pool figures, LP price and liquidity per day (/pool/lp-price), its deposits and withdrawals (/events/poolChanges). */
export const poolPage: Page = async (main, address) => {
  if (!address) throw new Error('no pool address in the address bar');
  main.append(h('h1', {}, 'Pool ', h('code', {}, address)));
  const [p, lp, dec] = await Promise.all([get('/pool', { pool: address }), get('/pool/lp-price', { pool: address, interval: 'day' }), tokenDecimals()]);
  const d = dec.get(p.token);
  main.append(h('div', { class: 'cards' },
    card('Token', mint(p.token)), card('Liquidity', formatUnits(p.liquidity, d), 'pool-liquidity'), card('LP supply', formatUnits(p.lp_supply, d)),
    card('LP price', p.lp_price === null ? '—' : p.lp_price.toFixed(6)), card('TVL', usd(p.tvl_usd)), card('Plays', int(p.plays)),
    card('Volume', formatUnits(p.volume, d)), card('Pool fees', formatUnits(p.pool_fees, d)), card('House PnL', formatUnits(p.house_pnl, d))));
  const charts = h('div', { class: 'charts' });
  main.append(charts);
  const xs = lp.data.map((x: any) => x.time);
  chart(charts, 'LP price (token per LP token)', xs, lp.data.map((x: any) => x.lp_price), { format: (v) => v.toFixed(4) });
  // Plotted as floats (a chart is a picture); the exact figure is in the cards and the table.
  const scale = d === null || d === undefined ? 1 : 10 ** d;
  chart(charts, 'Liquidity (token units)', xs, lp.data.map((x: any) => Number(BigInt(x.liquidity)) / scale), { format: (v) => compact.format(v) });
  const state = { stack: [undefined] as (string | undefined)[] };
  const box = h('div');
  main.append(h('h2', {}, 'Pool changes'), box);
  const cols: Column<ChangeRow>[] = [
    { title: 'Time', cell: (r) => time(r.time), sort: (r) => r.time },
    { title: 'Action', cell: (r) => r.action, sort: (r) => r.action },
    { title: 'User', cell: (r) => mint(r.user) },
    { title: 'Amount', cell: (r) => formatUnits(r.amount, d), sort: (r) => BigInt(r.amount), numeric: true },
    { title: 'Liquidity after', cell: (r) => formatUnits(r.post_liquidity, d), numeric: true },
    { title: 'USD', cell: (r) => usd(r.usd_amount), sort: (r) => r.usd_amount, numeric: true },
  ];
  const load = async (cursor: string | undefined): Promise<void> => {
    const page = await get('/events/poolChanges', { pool: address, itemsPerPage: 20, cursor });
    box.replaceChildren(table<ChangeRow>(page.results, cols), pager(state, page.nextCursor, (c) => void load(c).catch((e) => box.append(errorBox(e)))));
  };
  await load(undefined);
};

/** Live feed: games settled after the page opened, from /stream/settledGames (fetch-read SSE, the key in its header). */
export const livePage: Page = async (main, _arg, _params, signal) => {
  main.append(h('h1', {}, 'Live games'));
  const status = h('p', { id: 'live-status', role: 'status', 'aria-live': 'polite' }, 'connecting…');
  const dec = await tokenDecimals();
  const tbody = h('tbody', { id: 'live-rows' });
  const head = h('tr', {}, ...['Time', 'Player', 'Platform', 'Wager', 'Payout', '×', 'Profit (USD)'].map((t) => h('th', { scope: 'col' }, t)));
  main.append(status, h('div', { class: 'table-wrap' }, h('table', {}, h('thead', {}, head), tbody)));
  let count = 0;
  const open = Date.now();
  void stream('/stream/settledGames', (e) => {
    if (e.event !== 'settledGame') return;
    const g = JSON.parse(e.data) as GameRow;
    count++;
    const tr = h('tr', { tabindex: 0, 'data-id': e.id, 'data-signature': g.signature },
      h('td', {}, time(g.time)), h('td', {}, player(g.user)), h('td', {}, platform(g.creator)),
      h('td', { class: 'num' }, formatUnits(g.wager, dec.get(g.token))), h('td', { class: 'num' }, formatUnits(g.payout, dec.get(g.token))),
      h('td', { class: 'num' }, g.multiplier), h('td', { class: 'num' }, usd(g.usd_profit)));
    tbody.prepend(tr);
    while (tbody.children.length > 200) tbody.lastElementChild!.remove();
    status.textContent = `live · ${count} game${count === 1 ? '' : 's'} since ${ago(Date.now() - open)} ago`;
  }, (s) => {
    if (s === 'open') status.textContent = count ? status.textContent : 'live · waiting for games…';
    else status.textContent = s === 'retrying' ? 'reconnecting…' : `stream: ${s}`;
  }, signal);
};
