/**
 * The API client of the page: every request carries the key kept in this tab's sessionStorage
 * (X-API-Key header); the freshness headers of each answer feed the indicator.
 */

const KEY_ITEM = 'gamba.apiKey';

/** The API key of this tab, or null before the user gave one. */
export function apiKey(): string | null {
  return sessionStorage.getItem(KEY_ITEM);
}

/** Keeps `key` for this tab only (sessionStorage: gone when the tab closes). */
export function setApiKey(key: string): void {
  sessionStorage.setItem(KEY_ITEM, key.trim());
}

/** Forgets the key of this tab. */
export function forgetApiKey(): void {
  sessionStorage.removeItem(KEY_ITEM);
}

/** An error answer of the API (docs/spec.md §7 body: code, message). */
export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

/** Newest indexed event seen in any answer's X-Indexed-Slot / X-Indexed-Time headers. */
export const freshness: { slot: string | null; timeMs: number | null; listeners: Set<() => void> } = { slot: null, timeMs: null, listeners: new Set() };

function noteFreshness(res: Response): void {
  const slot = res.headers.get('x-indexed-slot');
  const t = res.headers.get('x-indexed-time');
  if (slot === null || t === null) return;
  const ms = Date.parse(t);
  if (freshness.slot !== null && BigInt(slot) < BigInt(freshness.slot)) return;
  freshness.slot = slot;
  freshness.timeMs = Number.isFinite(ms) ? ms : null;
  for (const l of freshness.listeners) l();
}

type Params = Record<string, string | number | boolean | undefined | null>;

/** `path` with the defined `params` as its query string. */
export function withQuery(path: string, params: Params = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s === '' ? path : `${path}?${s}`;
}

/** Fired when the API refuses the key (401): the page asks for another. */
export const keyRefused = new EventTarget();

/** GET `path` with `params` as JSON; throws ApiError on an error answer. */
export async function get<T = any>(path: string, params: Params = {}, signal?: AbortSignal): Promise<T> {
  const res = await fetch(withQuery(path, params), { headers: { 'X-API-Key': apiKey() ?? '', Accept: 'application/json' }, signal });
  noteFreshness(res);
  if (!res.ok) {
    let code = `HTTP_${res.status}`;
    let message = res.statusText;
    try {
      const body = await res.json();
      code = body.code ?? code;
      message = body.message ?? message;
    } catch {
      // not JSON
    }
    if (res.status === 401) keyRefused.dispatchEvent(new Event('refused'));
    throw new ApiError(res.status, code, message);
  }
  return (await res.json()) as T;
}

let decimalsCache: Promise<Map<string, number | null>> | null = null;

/** Each token's decimals from GET /tokens (all pages; null when the API does not know them). */
export function tokenDecimals(): Promise<Map<string, number | null>> {
  if (decimalsCache) return decimalsCache;
  decimalsCache = (async () => {
    const out = new Map<string, number | null>();
    let cursor: string | null | undefined;
    for (let i = 0; i < 20; i++) {
      const page = await get<{ results: { token: string; decimals?: number | null }[]; nextCursor: string | null }>('/tokens', { limit: 100, cursor });
      for (const t of page.results) out.set(t.token, typeof t.decimals === 'number' ? t.decimals : null);
      cursor = page.nextCursor;
      if (!cursor) break;
    }
    return out;
  })();
  decimalsCache.catch(() => (decimalsCache = null));
  return decimalsCache;
}

/** One Server-Sent Event of a stream. */
export interface SseEvent {
  id: string | undefined;
  event: string | undefined;
  data: string;
}

/**
 * Reads an SSE stream with fetch() (EventSource cannot send the X-API-Key header the API
 * requires), calling `onEvent` per event until `signal` aborts; reconnects with Last-Event-ID
 * after a drop (2 s). `onState` reports 'open', 'retrying' or an error message.
 */
export async function stream(path: string, onEvent: (e: SseEvent) => void, onState: (s: string) => void, signal: AbortSignal): Promise<void> {
  let lastId: string | undefined;
  while (!signal.aborted) {
    try {
      const headers: Record<string, string> = { 'X-API-Key': apiKey() ?? '', Accept: 'text/event-stream' };
      if (lastId !== undefined) headers['Last-Event-ID'] = lastId;
      const res = await fetch(path, { headers, signal });
      if (!res.ok || !res.body) {
        let message = `HTTP ${res.status}`;
        try {
          message = (await res.json()).message ?? message;
        } catch {
          // not JSON
        }
        if (res.status === 401) keyRefused.dispatchEvent(new Event('refused'));
        onState(message);
        if (res.status < 500 && res.status !== 429) return;
      } else {
        onState('open');
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buf = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += value.replace(/\r\n?/g, '\n');
          let cut: number;
          while ((cut = buf.indexOf('\n\n')) >= 0) {
            const block = buf.slice(0, cut);
            buf = buf.slice(cut + 2);
            const e: SseEvent = { id: undefined, event: undefined, data: '' };
            const data: string[] = [];
            for (const line of block.split('\n')) {
              if (line === '' || line.startsWith(':')) continue;
              const colon = line.indexOf(':');
              const field = colon < 0 ? line : line.slice(0, colon);
              const val = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
              if (field === 'id') e.id = val;
              else if (field === 'event') e.event = val;
              else if (field === 'data') data.push(val);
            }
            if (data.length === 0) continue;
            e.data = data.join('\n');
            if (e.id !== undefined) lastId = e.id;
            onEvent(e);
          }
        }
      }
    } catch (err) {
      if (signal.aborted) return;
      onState(String((err as Error).message ?? err));
    }
    if (signal.aborted) return;
    onState('retrying');
    await new Promise((r) => setTimeout(r, 2000));
  }
}
