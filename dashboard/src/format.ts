/** Formatting helpers: exact token amounts from u64 strings with BigInt (never Number), USD, times. */

/** `raw` smallest units (integer string, may be negative) as a decimal string with `decimals` places, trailing zeros trimmed, thousands grouped. */
export function formatUnits(raw: string, decimals: number | null | undefined): string {
  if (!/^-?\d+$/.test(raw)) return raw;
  let v = BigInt(raw);
  const neg = v < 0n;
  if (neg) v = -v;
  if (decimals === null || decimals === undefined) return (neg ? '-' : '') + group(v.toString()) + ' units';
  const base = 10n ** BigInt(decimals);
  const whole = v / base;
  const frac = (v % base).toString().padStart(decimals, '0').replace(/0+$/, '');
  return (neg ? '-' : '') + group(whole.toString()) + (frac === '' ? '' : '.' + frac);
}

function group(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

const usdFmt = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 2 });
const intFmt = new Intl.NumberFormat('en-US');

/** USD figure (a JSON number) as $1,234.56; null → —. */
export function usd(v: number | null | undefined): string {
  return v === null || v === undefined ? '—' : usdFmt.format(v);
}

/** Count with grouping; null → —. */
export function int(v: number | null | undefined): string {
  return v === null || v === undefined ? '—' : intFmt.format(v);
}

/** Unix ms as a local date-time (or in `tz`). */
export function time(ms: number | null | undefined, tz?: string): string {
  if (ms === null || ms === undefined) return '—';
  return new Date(ms).toLocaleString('en-GB', { timeZone: tz || undefined, dateStyle: 'medium', timeStyle: 'medium' });
}

/** An address shortened for tables (full one in the title). */
export function short(addr: string | null | undefined): string {
  if (!addr) return '—';
  return addr.length > 12 ? `${addr.slice(0, 4)}…${addr.slice(-4)}` : addr;
}

/** A duration in ms as "12 s", "3 min", "2 h", "4 d". */
export function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 90) return `${s} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  if (s < 172800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} d`;
}
