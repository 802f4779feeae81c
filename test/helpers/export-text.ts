/**
 * Export helpers of the contract tests (docs/design.md §11): a GET with an optional Accept header
 * whose body is read as text, and an RFC 4180 CSV parser written for the tests, independent of
 * the server's writer.
 */
import { expect } from 'vitest';
import { queryString } from './contract-world.js';

/** GET `path` with `query` on `baseUrl` with the key; the status, content type and body text. */
export async function fetchText(baseUrl: string, key: string, path: string, query: Record<string, string | number | undefined>, accept?: string): Promise<{ status: number; type: string; text: string }> {
  const res = await fetch(`${baseUrl}${path}${queryString(query)}`, { headers: { 'X-API-Key': key, ...(accept ? { Accept: accept } : {}) } });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

/** RFC 4180 parser (quoted fields, doubled quotes, CRLF). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') row.push(field), (field = '');
    else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(field), rows.push(row), (row = []), (field = ''), i++;
    } else field += ch;
  }
  expect(field, 'the CSV ends with CRLF').toBe('');
  expect(row).toEqual([]);
  return rows;
}
