import { type Command, InvalidArgumentError } from 'commander';
import { loadConfig } from '../../config/index.js';
import { createCommon, createLogger, dayToDate, MS_PER_DAY, sleep, type Common } from '../../core/index.js';
import { createStore } from '../../store/index.js';
import { exitOnSignals } from '../process.js';

interface VerifyFlags {
  since?: number;
  until?: number;
  json?: boolean;
  every?: number;
  list: number;
}

/** Exit code of a run that found gaps, surpluses or failed-flag mismatches (0 when complete). */
export const VERIFY_INCOMPLETE_EXIT_CODE = 2;

/**
 * `gamba-analytics verify` (docs/design.md "Coverage and reconciliation"; README): walks the
 * program's signatures on SOLANA_RPC_URL within RPC_MAX_RPS / RPC_CONCURRENCY (the indexer's
 * client and rate cap), compares each UTC day of the indexed range (or `--since`/`--until`,
 * `YYYY-MM-DD`) with the DATABASE_URL store's processed signatures, prints a table (or `--json`),
 * and stores the result for GET /audit/coverage and /status. Exit code 0 when complete, 2 when
 * anything differs. `--every <duration>` (`30m`, `6h`, `1d`) repeats the run until
 * SIGTERM/SIGINT (a scheduler of its own; the exit code is then 0). Errors: a missing
 * SOLANA_RPC_URL, an empty store (AppError COVERAGE_NOTHING_INDEXED), RPC and store errors.
 */
export function registerVerify(program: Command): void {
  program
    .command('verify')
    .description('reconcile the store with the chain: per UTC day signature counts, gaps and surpluses by signature (configuration from the environment: SOLANA_RPC_URL, DATABASE_URL, RPC_MAX_RPS)')
    .option('--since <date>', 'first UTC day to verify, YYYY-MM-DD (default: the start of the indexed range)', parseDate)
    .option('--until <date>', 'last UTC day to verify, YYYY-MM-DD (default: the day of the newest indexed signature)', parseDate)
    .option('--json', 'print the result as JSON instead of a table')
    .option('--list <n>', 'gaps and surpluses printed in the table (all are stored)', parseCount, 50)
    .option('--every <duration>', 'repeat every duration (e.g. 30m, 6h, 1d) until SIGTERM/SIGINT', parseDuration)
    .action(async (opts: VerifyFlags) => {
      const config = loadConfig();
      if (!config.solanaRpcUrl) throw new Error('SOLANA_RPC_URL is required for `verify`');
      if (opts.since !== undefined && opts.until !== undefined && opts.since > opts.until) throw new InvalidArgumentError('--since must not be after --until');
      const common = createCommon({ logger: createLogger({ level: config.logLevel === 'info' ? 'warn' : config.logLevel, destination: process.stderr }) });
      // Loaded here, not at the top: `serve` must not load the indexer's modules (docs/architecture.md "Process topology").
      const { verifyCoverage } = await import('../../ingest/index.js');
      const { createRpcClient } = await import('../../solana/index.js');
      const store = await createStore({ common, config: config.store });
      const rpc = createRpcClient({ common, url: config.solanaRpcUrl, concurrency: config.rpcConcurrency, maxRps: config.rpcMaxRps, timeoutMs: 30_000 });
      const runOnce = async (signal?: AbortSignal) => {
        const r = await verifyCoverage({ common, store, rpc, sinceDay: opts.since, untilDay: opts.until, signal });
        process.stdout.write(opts.json ? `${JSON.stringify(r)}\n` : formatTable(r, opts.list));
        return r.run.gaps + r.run.surpluses === 0 && r.days.every((d) => d.failedMismatches === 0);
      };
      if (opts.every === undefined) {
        try {
          const complete = await runOnce();
          if (!complete) process.exitCode = VERIFY_INCOMPLETE_EXIT_CODE;
        } finally {
          await store.close();
        }
        return;
      }
      await runEvery(common, opts.every, runOnce);
    });
}

/** `--every`: one run, then one each `everyMs` after the previous ended; a failed run is logged and retried at the next tick. */
async function runEvery(common: Common, everyMs: number, runOnce: (signal: AbortSignal) => Promise<boolean>): Promise<void> {
  const stop = new AbortController();
  common.shutdown.register('verify schedule', async () => stop.abort());
  exitOnSignals(common);
  for (;;) {
    try {
      await runOnce(stop.signal);
    } catch (err) {
      if (stop.signal.aborted) return;
      common.logger.error({ err }, 'verification failed; retrying at the next run');
    }
    try {
      await sleep(everyMs, stop.signal);
    } catch {
      return;
    }
  }
}

/** The result as a text table: per day chain vs store counts, then the first `list` differences. */
function formatTable(r: { run: { verifiedAtMs: number; sinceDay: number; untilDay: number; completeSinceDay: number | null; gaps: number; surpluses: number; chainSignatures: number; storeSignatures: number }; days: { day: number; chainTotal: number; chainFailed: number; storeEvents: number; storeEmpty: number; storeFailed: number; gaps: number; surpluses: number; failedMismatches: number }[]; diffs: { day: number; signature: string; slot: number; side: string }[]; pending: number }, list: number): string {
  const head = ['day', 'chain', 'chain failed', 'store events', 'store empty', 'store failed', 'gaps', 'surpluses', 'failed mismatch'];
  const rows = r.days.map((d) => [dayToDate(d.day), d.chainTotal, d.chainFailed, d.storeEvents, d.storeEmpty, d.storeFailed, d.gaps, d.surpluses, d.failedMismatches].map(String));
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const out = [line(head), ...rows.map(line)];
  const { run } = r;
  out.push('');
  out.push(
    `Verified ${dayToDate(run.sinceDay)} … ${dayToDate(run.untilDay)}: ${run.chainSignatures} signatures on chain, ${run.storeSignatures} in the store, ${run.gaps} gaps, ${run.surpluses} surpluses; ` +
      `complete since ${run.completeSinceDay === null ? 'never (the newest day differs)' : dayToDate(run.completeSinceDay)}; ${r.pending} newer signatures not indexed yet.`,
  );
  for (const d of r.diffs.slice(0, list)) out.push(`${d.side.padEnd(7)}  ${dayToDate(d.day)}  slot ${d.slot}  ${d.signature}`);
  if (r.diffs.length > list) out.push(`… ${r.diffs.length - list} more (GET /audit/coverage, or --json)`);
  return `${out.join('\n')}\n`;
}

/** `YYYY-MM-DD` → UTC day number. */
function parseDate(value: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : NaN;
  if (!Number.isFinite(ms)) throw new InvalidArgumentError('must be a UTC date YYYY-MM-DD');
  return Math.floor(ms / MS_PER_DAY);
}

function parseCount(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 10_000_000) throw new InvalidArgumentError('must be a non-negative integer');
  return Number(value);
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: MS_PER_DAY };

/** `30m`, `6h`, `1d`, `90s` → ms (at least one minute: each run walks the whole range on the RPC). */
export function parseDuration(value: string): number {
  const m = /^(\d+)(s|m|h|d)$/.exec(value.trim());
  const ms = m ? Number(m[1]) * UNIT_MS[m[2]!]! : NaN;
  if (!Number.isFinite(ms) || ms < 60_000 || ms > 366 * MS_PER_DAY) throw new InvalidArgumentError('must be a duration like 30m, 6h or 1d (at least 1m, at most 366d)');
  return ms;
}
