import { hash32, Rng, unit } from './rng.js';

/**
 * Fault injection (docs/simulator.md): probabilities are per HTTP request to the JSON-RPC endpoint
 * (the price endpoints and the WebSocket are never faulted). String form, comma-separated:
 *
 *   429=0.1        HTTP 429 with a Retry-After header, probability 0.1
 *   retry-after=2  Retry-After value in seconds (default 1)
 *   503=0.05       HTTP 503 Service Unavailable
 *   unhealthy=0.02 JSON-RPC error -32005 "Node is behind by N slots" for every item
 *   slow=0.1@800   answer 800 ms late with probability 0.1 (default delay 1500 ms)
 *   null-tx=5      getTransaction answers null for transactions younger than 5 s
 *   truncate=0.01  share of event-carrying transactions whose logs end in "Log truncated"
 *                  instead of their "Program data:" line (decided per signature, stable)
 *   rig=0.01       share of settled games that are rigged (decided per game from the seed, stable):
 *                  each breaks one fairness rule (docs/design.md "Fairness audit"); unlike the
 *                  others it changes the chain's history, so it is read once at start (`setFaults`
 *                  does not change it) and the ground truth names each rigged game and its rule
 *
 * `none` or an empty string means no faults.
 */
export interface FaultSpec {
  rateLimit?: number;
  retryAfterSeconds?: number;
  unavailable?: number;
  unhealthy?: number;
  slow?: number;
  slowMs?: number;
  nullTxSeconds?: number;
  truncate?: number;
  /** Share of settled games that are rigged (read at start only; see above). */
  rig?: number;
}

function prob(name: string, raw: string): number {
  const n = Number(raw);
  if (raw === '' || !Number.isFinite(n) || n < 0 || n > 1) throw new RangeError(`fault ${name}: probability must be a number in [0, 1], got ${JSON.stringify(raw)}`);
  return n;
}

function nonNeg(name: string, raw: string): number {
  const n = Number(raw);
  if (raw === '' || !Number.isFinite(n) || n < 0) throw new RangeError(`fault ${name}: must be a non-negative number, got ${JSON.stringify(raw)}`);
  return n;
}

/** Parses the `--faults` string form (see above). Throws RangeError naming the bad part. */
export function parseFaults(spec: string): FaultSpec {
  const out: FaultSpec = {};
  const s = spec.trim();
  if (s === '' || s === 'none') return out;
  for (const part of s.split(',')) {
    const [rawKey, rawValue = ''] = part.split('=').map((x) => x.trim()) as [string, string | undefined];
    const key = rawKey.toLowerCase();
    const value = rawValue ?? '';
    switch (key) {
      case '429':
        out.rateLimit = prob(key, value);
        break;
      case 'retry-after':
        out.retryAfterSeconds = nonNeg(key, value);
        break;
      case '503':
        out.unavailable = prob(key, value);
        break;
      case 'unhealthy':
        out.unhealthy = prob(key, value);
        break;
      case 'slow': {
        const [p, ms] = value.split('@');
        out.slow = prob(key, p ?? '');
        if (ms !== undefined) out.slowMs = nonNeg('slow delay', ms);
        break;
      }
      case 'null-tx':
        out.nullTxSeconds = nonNeg(key, value);
        break;
      case 'truncate':
        out.truncate = prob(key, value);
        break;
      case 'rig':
        out.rig = prob(key, value);
        break;
      default:
        throw new RangeError(`unknown fault kind ${JSON.stringify(rawKey)} (known: 429, retry-after, 503, unhealthy, slow, null-tx, truncate, rig)`);
    }
  }
  return out;
}

/** A FaultSpec from either form (null or undefined = no faults); a string goes through `parseFaults` and may throw RangeError. */
export function normalizeFaults(spec: string | FaultSpec | null | undefined): FaultSpec {
  if (spec === null || spec === undefined) return {};
  return typeof spec === 'string' ? parseFaults(spec) : { ...spec };
}

/** Per-request fault decisions from a seeded PRNG (reproducible for a given request order). */
export interface FaultDice {
  spec: FaultSpec;
  roll(p: number | undefined): boolean;
  /** Whether a signature's logs are truncated (stable per signature while `truncate` is set). */
  truncated(signature: string): boolean;
}

/** Fault dice for `spec` from a PRNG keyed by `seed`, so a given request order rolls the same faults. */
export function createFaultDice(seed: number, spec: FaultSpec): FaultDice {
  const rng = new Rng(seed, 'faults');
  return {
    spec,
    roll: (p) => p !== undefined && p > 0 && rng.next() < p,
    truncated: (signature) => (spec.truncate ?? 0) > 0 && unit(hash32(seed, 'truncate', signature)) < spec.truncate!,
  };
}
