import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ManualClock, createCommon, createLogger } from '../../src/core/index.js';
import { createProgress } from '../../src/ingest/progress.js';

const DAY = 86_400;

describe('backfill progress', () => {
  it('without a TTY: one structured log line every 5 s with percent, rate and ETA', () => {
    const lines: any[] = [];
    const dest = new PassThrough();
    dest.on('data', (d) => String(d).split('\n').filter(Boolean).forEach((l) => lines.push(JSON.parse(l))));
    const clock = new ManualClock(1_000_000);
    const common = createCommon({ clock, logger: createLogger({ destination: dest }) });
    const stream = Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.WriteStream;
    const p = createProgress({ common, mode: 'auto', cutoff: 0, stream });
    const at = (covered: number, signatures: number) => ({ newestBlockTime: 100 * DAY, oldestBlockTime: 100 * DAY - covered, signatures, events: signatures / 2, requests: signatures / 10 });
    p.update(at(0, 0));
    clock.advance(4000);
    p.update(at(10 * DAY, 4000));
    expect(lines).toHaveLength(0);
    clock.advance(1000);
    p.update(at(25 * DAY, 10_000));
    p.stop();
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        expect(lines).toHaveLength(1);
        // 25 of 100 days covered in 5 s → 15 s left; 10 000 signatures in 5 s.
        expect(lines[0]).toMatchObject({ msg: 'backfill progress', percent: 25, signatures: 10_000, events: 5000, requests: 1000, rate_per_s: 2000, eta_s: 15 });
        resolve();
      }),
    );
  });

  it('on a TTY: draws a bar with rate and ETA', () => {
    let drawn = '';
    const stream = Object.assign(new PassThrough(), { isTTY: true, columns: 200, cursorTo: () => true, clearLine: () => true, moveCursor: () => true }) as unknown as NodeJS.WriteStream;
    stream.on('data', (d) => (drawn += String(d)));
    const p = createProgress({ common: createCommon(), mode: 'auto', cutoff: 0, stream });
    p.update({ newestBlockTime: 100, oldestBlockTime: 50, signatures: 1234, events: 600, requests: 77 });
    p.stop();
    expect(drawn).toMatch(/backfill .*50%.*1234 txs, 600 events \| 77 requests.*tx\/s.*ETA/);
  });

  it('prints the start-up estimate: a log line, and a line above the bar on a TTY', () => {
    let drawn = '';
    const lines: any[] = [];
    const dest = new PassThrough();
    dest.on('data', (d) => String(d).split('\n').filter(Boolean).forEach((l) => lines.push(JSON.parse(l))));
    const stream = Object.assign(new PassThrough(), { isTTY: true, columns: 200, cursorTo: () => true, clearLine: () => true, moveCursor: () => true }) as unknown as NodeJS.WriteStream;
    stream.on('data', (d) => (drawn += String(d)));
    const p = createProgress({ common: createCommon({ logger: createLogger({ destination: dest }) }), mode: 'auto', cutoff: 0, stream });
    p.estimate({ source: 'helius', transactions: 100_000, requests: 1001, maxRps: 50, seconds: 20 });
    p.stop();
    expect(drawn).toContain('backfill estimate (helius): ~100000 transactions, ~1001 requests, ≥ 20s at RPC_MAX_RPS=50');
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        expect(lines[0]).toMatchObject({ msg: 'backfill estimate', history_source: 'helius', transactions: 100_000, requests: 1001, max_rps: 50, seconds_at_max_rps: 20 });
        resolve();
      }),
    );
  });
});
