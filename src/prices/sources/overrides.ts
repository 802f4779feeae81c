import fs from 'node:fs';
import { AppError, hourFloor, type Common } from '../../core/index.js';
import type { PriceQuote, PriceSource } from '../types.js';

/**
 * Operator price overrides (PRICE_OVERRIDES_FILE), JSON, USD per **whole** token:
 *
 * ```json
 * {
 *   "<mint>": 0.0123,
 *   "<mint>": { "default": 1.0, "hours": { "2025-03-01T14:00:00Z": 1.02, "1740837600000": 1.01 } }
 * }
 * ```
 * A number applies to every hour. An object gives per-hour prices (key = the hour's start as
 * ISO 8601 or Unix ms; any time inside the hour is floored to it) and an optional `default`
 * for the other hours. The file is re-read when its modification time changes, so an operator
 * can add a price and the re-pricing job picks it up without a restart.
 */
export type OverridesFile = Record<string, number | { default?: number; hours?: Record<string, number> }>;

interface Parsed {
  constant: Map<string, number>;
  hourly: Map<string, Map<number, number>>;
}

function fail(file: string, msg: string): never {
  throw new AppError('CONFIG_INVALID', `PRICE_OVERRIDES_FILE ${file}: ${msg}`);
}

function validPrice(file: string, where: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) fail(file, `${where} must be a non-negative number`);
  return v;
}

/** Parses and validates an overrides document; throws AppError CONFIG_INVALID naming the bad entry. */
export function parseOverrides(json: unknown, file = '<inline>'): Parsed {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) fail(file, 'must be a JSON object keyed by mint');
  const constant = new Map<string, number>();
  const hourly = new Map<string, Map<number, number>>();
  for (const [mint, v] of Object.entries(json as Record<string, unknown>)) {
    if (typeof v === 'number') {
      constant.set(mint, validPrice(file, mint, v));
      continue;
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(file, `${mint} must be a number or {default, hours}`);
    const o = v as { default?: unknown; hours?: unknown };
    if (o.default !== undefined) constant.set(mint, validPrice(file, `${mint}.default`, o.default));
    if (o.hours !== undefined) {
      if (typeof o.hours !== 'object' || o.hours === null) fail(file, `${mint}.hours must be an object`);
      const m = new Map<number, number>();
      for (const [k, p] of Object.entries(o.hours as Record<string, unknown>)) {
        const ms = /^\d+$/.test(k) ? Number(k) : Date.parse(k);
        if (!Number.isFinite(ms)) fail(file, `${mint}.hours key ${JSON.stringify(k)} is not an ISO 8601 time or Unix ms`);
        m.set(hourFloor(ms), validPrice(file, `${mint}.hours[${k}]`, p));
      }
      hourly.set(mint, m);
    }
  }
  return { constant, hourly };
}

/** What createOverridesSource takes: a file path or an inline table. */
export interface OverridesSourceOptions {
  common: Common;
  /** Path of the JSON file; read at creation (a bad file fails start-up) and when it changes. */
  file?: string;
  /** Inline table instead of a file (tests, embedding). */
  table?: OverridesFile;
}

/** The overrides price source (USD per whole token, source `override`); throws AppError CONFIG_INVALID when the file cannot be read or is invalid at creation. */
export function createOverridesSource(o: OverridesSourceOptions): PriceSource {
  let parsed: Parsed = parseOverrides(o.table ?? {}, '<inline>');
  let mtimeMs = -1;
  const reload = () => {
    if (!o.file) return;
    let st: fs.Stats;
    try {
      st = fs.statSync(o.file);
    } catch (e) {
      fail(o.file, `cannot be read (${(e as Error).message})`);
    }
    if (st.mtimeMs === mtimeMs) return;
    let json: unknown;
    try {
      json = JSON.parse(fs.readFileSync(o.file, 'utf8'));
    } catch (e) {
      fail(o.file, `is not valid JSON (${(e as Error).message})`);
    }
    parsed = parseOverrides(json, o.file);
    mtimeMs = st.mtimeMs;
  };
  reload();

  const lookup = (mint: string, hourMs: number): number | undefined => parsed.hourly.get(mint)?.get(hourFloor(hourMs)) ?? parsed.constant.get(mint);

  return {
    name: 'override',
    covers: () => true,
    async priceAt(mints, hourMs) {
      try {
        reload();
      } catch (e) {
        // A file broken while running keeps the last good table; the operator sees the warning.
        o.common.logger.warn({ err: (e as Error).message }, 'price overrides file not reloaded');
      }
      const out = new Map<string, PriceQuote>();
      for (const m of mints) {
        const p = lookup(m, hourMs);
        if (p !== undefined) out.set(m, { usdPrice: p, source: 'override', publishTime: null });
      }
      o.common.metrics.priceLookups.inc({ source: 'override', outcome: 'ok' }, out.size);
      return out;
    },
  };
}
