import cliProgress from 'cli-progress';
import type { Common } from '../core/index.js';
import type { BackfillProgress } from './backfill.js';
import type { BackfillEstimate } from './estimate.js';

/** How backfill progress is shown: 'auto' (a bar on a TTY, log lines otherwise), 'bar', 'log', or 'off'. */
export type ProgressMode = 'auto' | 'bar' | 'log' | 'off';

/** Receives a backfill run's progress; `stop` ends the bar. */
export interface ProgressReporter {
  /** The start-up cost estimate: a log line, and a line on the stream in bar mode. */
  estimate(e: BackfillEstimate): void;
  update(p: BackfillProgress): void;
  stop(): void;
}

/**
 * Backfill progress for people (docs/indexer.md): a cli-progress bar with rate and ETA when stdout is a
 * TTY, otherwise one structured log line every `logEveryMs` (default 5 s). Progress is measured
 * in time covered: from the newest block time seen (Unix s) down to `cutoff` (Unix s); times from the injected clock.
 */
export function createProgress(o: { common: Common; mode: ProgressMode; cutoff: number; logEveryMs?: number; stream?: NodeJS.WriteStream }): ProgressReporter {
  const { logger, clock } = o.common;
  const stream = o.stream ?? process.stdout;
  const mode = o.mode === 'auto' ? (stream.isTTY ? 'bar' : 'log') : o.mode;
  if (mode === 'off') return { estimate: () => undefined, update: () => undefined, stop: () => undefined };

  const logEveryMs = o.logEveryMs ?? 5000;
  const startedAt = clock.now();
  let lastLog = startedAt;
  let startSigs: number | undefined;
  let startFraction: number | undefined;
  let bar: cliProgress.SingleBar | undefined;

  const fraction = (p: BackfillProgress): number => {
    if (p.newestBlockTime === null || p.oldestBlockTime === null) return 0;
    const span = p.newestBlockTime - o.cutoff;
    if (span <= 0) return 1;
    return Math.min(1, Math.max(0, (p.newestBlockTime - p.oldestBlockTime) / span));
  };

  return {
    estimate(e) {
      logger.info(
        { history_source: e.source, transactions: e.transactions, requests: e.requests, max_rps: e.maxRps, seconds_at_max_rps: e.seconds },
        'backfill estimate',
      );
      if (mode === 'bar') {
        stream.write(`backfill estimate (${e.source}): ~${e.transactions} transactions, ~${e.requests} requests, ≥ ${formatDuration(e.seconds)} at RPC_MAX_RPS=${e.maxRps}\n`);
      }
    },
    update(p) {
      startSigs ??= p.signatures;
      const requests = p.requests;
      const now = clock.now();
      const elapsedS = Math.max(0.001, (now - startedAt) / 1000);
      const rate = (p.signatures - startSigs) / elapsedS;
      const f = fraction(p);
      startFraction ??= f;
      const oldest = p.oldestBlockTime === null ? '-' : new Date(p.oldestBlockTime * 1000).toISOString().slice(0, 16).replace('T', ' ');
      if (mode === 'bar') {
        if (!bar) {
          bar = new cliProgress.SingleBar(
            {
              stream,
              format: 'backfill |{bar}| {percentage}% | back to {oldest} | {txs} txs, {events} events | {requests} requests | {rate} tx/s | ETA {eta_formatted}',
              hideCursor: true,
              etaBuffer: 50,
            },
            cliProgress.Presets.shades_classic,
          );
          bar.start(1000, 0, { oldest, txs: 0, events: 0, requests: 0, rate: '0' });
        }
        bar.update(Math.round(f * 1000), { oldest, txs: p.signatures, events: p.events, requests, rate: rate.toFixed(0) });
        return;
      }
      if (now - lastLog < logEveryMs) return;
      lastLog = now;
      const done = f - startFraction;
      const etaS = done > 0 && f < 1 ? Math.round((elapsedS * (1 - f)) / done) : null;
      logger.info(
        { percent: Math.round(f * 1000) / 10, signatures: p.signatures, events: p.events, requests, rate_per_s: Math.round(rate), eta_s: etaS, oldest_block_time: p.oldestBlockTime },
        'backfill progress',
      );
    },
    stop() {
      bar?.stop();
    },
  };
}

/** `s` seconds as `1h02m`, `3m05s` or `12s`. */
function formatDuration(s: number): string {
  if (s >= 3600) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}
