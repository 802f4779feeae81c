import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Exports (docs/design.md §11): every list and series answers, on request, every matching row as
 * CSV or NDJSON instead of one JSON page. The rows are read page by page through the store's
 * keyset (each page one store read, queued in the reader pool like any request's), and the next
 * page is read only when the socket has taken the previous one (a pull stream: backpressure), so
 * memory stays at one page whatever the row count, and other requests interleave with the pages
 * (each later page takes a slot of the key's fair share: plugins/concurrency.ts).
 */

/** An export format: `text/csv` (RFC 4180, header line first) or `application/x-ndjson` (one JSON object per line). */
export type ExportFormat = 'csv' | 'ndjson';

/** Content types of the formats; the `Accept` header names the same types. */
const CONTENT_TYPES: Record<ExportFormat | 'json', string> = {
  json: 'application/json',
  csv: 'text/csv',
  ndjson: 'application/x-ndjson',
};

/** Rows per store read of an export: large enough to amortise a read, small enough to bound memory. */
export const EXPORT_PAGE_ROWS = 1000;

/**
 * The format a request asks for: the `format` parameter if given (it wins), else the `Accept`
 * header's preferred type among JSON, CSV and NDJSON (highest q; the first listed on ties; `*\/*`
 * and no header mean JSON). Undefined = the ordinary JSON answer.
 */
export function exportFormat(request: FastifyRequest): ExportFormat | undefined {
  const f = (request.query as Record<string, unknown> | undefined)?.format;
  if (f === 'csv' || f === 'ndjson') return f;
  if (f === 'json') return undefined;
  return acceptedFormat(request.headers.accept);
}

/** `Accept` header → 'csv' | 'ndjson' when one of them is preferred over JSON (RFC 9110 §12.5.1 q-values). */
export function acceptedFormat(accept: string | undefined): ExportFormat | undefined {
  if (!accept || (!accept.includes('csv') && !accept.includes('ndjson'))) return undefined;
  let best: { format: ExportFormat | 'json'; q: number } | undefined;
  for (const part of accept.split(',')) {
    const [type = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!(q > 0)) continue;
    const format = type === 'text/csv' ? 'csv' : type === 'application/x-ndjson' ? 'ndjson' : type === 'application/json' || type === '*/*' || type === 'application/*' ? 'json' : undefined;
    if (format !== undefined && (best === undefined || q > best.q)) best = { format, q };
  }
  return best === undefined || best.format === 'json' ? undefined : best.format;
}

/** One CSV field (RFC 4180): null/undefined → empty; text with a comma, quote or line break is quoted. */
function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Rows → text in `format`, keeping `columns` in order (token amounts arrive as integer strings: exact). */
function render(format: ExportFormat, columns: readonly string[], objects: readonly object[]): string {
  const rows = objects as readonly Record<string, unknown>[];
  let out = '';
  if (format === 'csv') {
    for (const r of rows) out += `${columns.map((c) => csvField(r[c])).join(',')}\r\n`;
  } else {
    for (const r of rows) {
      const o: Record<string, unknown> = {};
      for (const c of columns) o[c] = r[c];
      out += `${JSON.stringify(o)}\n`;
    }
  }
  return out;
}

/**
 * Pages of an export: `read(after)` returns one page of JSON-shaped rows (the route's own mapping)
 * and the position after it (null at the end); the first call gets `start` (a decoded `cursor`, or
 * undefined for the beginning).
 */
export type PageReader<P> = (after: P | undefined) => Promise<{ rows: readonly object[]; next: P | null }>;

/**
 * Answers `reply` with every row `read` yields, as `format`. The first page is read before the
 * answer starts, so a store error or a bad cursor is still an ordinary error answer; a failure on
 * a later page aborts the body (the client sees a truncated chunked answer, never a wrong one).
 * Returns the stream for the handler to return (Fastify pipes it with backpressure).
 */
export async function sendExport<P>(reply: FastifyReply, format: ExportFormat, columns: readonly string[], read: PageReader<P>, start?: P): Promise<Readable> {
  const first = await read(start);
  // Later pages are read after the handler returned: each takes a slot of the key's fair share.
  const slot = reply.request.storeSlot;
  const later = (at: P) => (slot ? slot(() => read(at)) : read(at));
  async function* lines(): AsyncGenerator<string> {
    if (format === 'csv') yield `${columns.map(csvField).join(',')}\r\n`;
    let page = first;
    for (;;) {
      if (page.rows.length > 0) yield render(format, columns, page.rows);
      if (page.next === null) return;
      page = await later(page.next);
    }
  }
  reply.header('content-type', `${CONTENT_TYPES[format]}; charset=utf-8`);
  reply.header('cache-control', 'no-store');
  return Readable.from(lines(), { objectMode: false });
}

/** A series (one store answer, not paged) as an export: the rows at once, then the end. */
export function oneShot(rows: readonly object[]): PageReader<never> {
  return async () => ({ rows, next: null });
}
