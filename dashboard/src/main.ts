/**
 * Gamba Analytics dashboard: hash routes over the JSON API of the same origin (docs/design.md
 * §12). The API key is asked once per tab and kept in sessionStorage; every request sends it in
 * X-API-Key. Theme: the system's (prefers-color-scheme) unless toggled (kept in localStorage).
 */
import 'uplot/dist/uPlot.min.css';
import './style.css';
import { apiKey, forgetApiKey, freshness, get, keyRefused, setApiKey } from './api.js';
import { ago, int } from './format.js';
import { h } from './ui.js';
import { livePage, overview, platformPage, platforms, playerPage, players, poolPage, pools, tokens, type Page } from './pages.js';

const routes: Record<string, Page> = {
  '': overview,
  players,
  platforms,
  tokens,
  pools,
  pool: poolPage,
  player: playerPage,
  platform: platformPage,
  live: livePage,
};

const main = document.getElementById('main')!;
let current: AbortController | null = null;

function askKey(reason?: string): void {
  current?.abort();
  const input = h('input', { type: 'password', id: 'api-key', autocomplete: 'off', required: true, 'aria-describedby': 'key-help' });
  const form = h('form', { class: 'key-form', 'aria-label': 'API key' },
    h('h1', {}, 'API key'),
    reason ? h('p', { class: 'error', role: 'alert' }, reason) : null,
    h('p', { id: 'key-help' }, 'Paste an API key (npm start prints the demo key once). It is kept in this tab only (sessionStorage) and sent in the X-API-Key header.'),
    h('label', {}, 'Key ', input), h('button', { type: 'submit' }, 'Use key'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    setApiKey(input.value);
    void route();
  });
  main.replaceChildren(form);
  input.focus();
}

async function route(): Promise<void> {
  if (!apiKey()) return askKey();
  current?.abort();
  const ctl = new AbortController();
  current = ctl;
  const [path, query] = location.hash.replace(/^#\/?/, '').split('?') as [string, string | undefined];
  const [name, arg] = path.split('/') as [string, string | undefined];
  const page = routes[name] ?? overview;
  for (const a of document.querySelectorAll<HTMLAnchorElement>('#nav a')) {
    const target = a.getAttribute('href')!.replace(/^#\/?/, '');
    if (target === name) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  main.replaceChildren();
  main.setAttribute('aria-busy', 'true');
  try {
    await page(main, arg ? decodeURIComponent(arg) : undefined, new URLSearchParams(query ?? ''), ctl.signal);
  } catch (err) {
    if (!ctl.signal.aborted) main.append(h('p', { class: 'error', role: 'alert' }, `Could not load: ${(err as Error).message}`));
  } finally {
    if (current === ctl) main.removeAttribute('aria-busy');
  }
}

keyRefused.addEventListener('refused', () => {
  forgetApiKey();
  askKey('The API refused this key (401). Paste another.');
});

// Theme: system preference unless the user toggled.
const THEME_ITEM = 'gamba.theme';
function applyTheme(): void {
  const t = localStorage.getItem(THEME_ITEM);
  if (t === 'light' || t === 'dark') document.documentElement.dataset.theme = t;
  else delete document.documentElement.dataset.theme;
}
document.getElementById('theme')!.addEventListener('click', () => {
  const dark = document.documentElement.dataset.theme ? document.documentElement.dataset.theme === 'dark' : matchMedia('(prefers-color-scheme: dark)').matches;
  localStorage.setItem(THEME_ITEM, dark ? 'light' : 'dark');
  applyTheme();
  void route(); // charts read the theme's colours when drawn
});
document.getElementById('forget')!.addEventListener('click', () => {
  forgetApiKey();
  askKey();
});
applyTheme();

// Freshness: the newest indexed event from the answers' headers, and /status every 15 s.
const fresh = document.getElementById('freshness')!;
let syncing = false;
let totalGames: number | null = null;
function drawFreshness(): void {
  if (freshness.timeMs === null) {
    fresh.textContent = 'no events indexed yet';
    return;
  }
  const lag = Date.now() - freshness.timeMs;
  fresh.textContent = `slot ${freshness.slot} · ${ago(lag)} behind${syncing ? ' · syncing' : ''}`;
  fresh.title = `Newest indexed event: slot ${freshness.slot}, ${new Date(freshness.timeMs).toISOString()}${totalGames === null ? '' : ` · ${int(totalGames)} games`}`;
  fresh.dataset.lagMs = String(lag);
  fresh.className = `freshness ${lag > 600_000 ? 'stale' : lag > 60_000 ? 'late' : 'ok'}`;
}
freshness.listeners.add(drawFreshness);
async function pollStatus(): Promise<void> {
  if (!apiKey()) return;
  try {
    const s = await get('/status');
    syncing = Boolean(s.syncing);
    totalGames = s.totalGames ?? null;
    drawFreshness();
  } catch {
    // shown on the pages
  }
}
setInterval(() => void pollStatus(), 15_000);
setInterval(drawFreshness, 1_000);

window.addEventListener('hashchange', () => void route());
void route().then(pollStatus);
