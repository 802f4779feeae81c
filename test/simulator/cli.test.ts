import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerSimulate } from '../../src/cli/commands/simulate.js';
import { parseGroundTruthLine, startSimulator } from '../../src/simulator/index.js';
import { rpc } from '../helpers/simulator.js';

/** `gamba-analytics simulate`: flags, ground-truth export, URLs on stdout, clean stop on SIGTERM. */
const START = '2025-06-01T12:00:00.000Z';

function cli(): Command {
  const program = new Command('gamba-analytics').exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} });
  registerSimulate(program);
  return program;
}

describe('simulate command', () => {
  it('--export-events --export-only writes the NDJSON ground truth that the library also produces', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-cli-'));
    const file = join(dir, 'events.ndjson');
    const write = process.stdout.write;
    process.stdout.write = (() => true) as never;
    try {
      await cli().parseAsync(['node', 'x', 'simulate', '--seed', '4', '--days', '2', '--plays-per-day', '150', '--live-rate', '0', '--start-time', START, '--export-events', file, '--export-only']);
    } finally {
      process.stdout.write = write;
    }
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines.length).toBeGreaterThan(200);
    const events = lines.map(parseGroundTruthLine);
    expect(typeof (events.find((e) => e.name === 'GameSettled')!.data as { wager: unknown }).wager).toBe('bigint');
    // The same chain from the library: same events (the export stops at the then-confirmed slot).
    const sim = await startSimulator({ seed: 4, days: 2, playsPerDay: 150, liveRate: 0, startTimeMs: Date.parse(START) });
    try {
      const again = join(dir, 'again.ndjson');
      await sim.exportEvents(again);
      expect(readFileSync(again, 'utf8')).toBe(readFileSync(file, 'utf8'));
    } finally {
      await sim.stop();
    }
  });

  it('--whales adds the BONK whale\'s games (BONK volume past 2^63); without it, no wager comes near', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-cli-'));
    const exportWith = async (extra: string[]) => {
      const file = join(dir, `events${extra.length}.ndjson`);
      const write = process.stdout.write;
      process.stdout.write = (() => true) as never;
      try {
        await cli().parseAsync(['node', 'x', 'simulate', '--seed', '4', '--days', '2', '--plays-per-day', '100', '--live-rate', '0', '--start-time', START, ...extra, '--export-events', file, '--export-only']);
      } finally {
        process.stdout.write = write;
      }
      const wagers = readFileSync(file, 'utf8').trim().split('\n').map(parseGroundTruthLine).flatMap((e) => (e.name === 'GameSettled' ? [(e.data as { wager: bigint }).wager] : []));
      return { total: wagers.reduce((a, w) => a + w, 0n), max: wagers.reduce((a, w) => (w > a ? w : a), 0n) };
    };
    const plain = await exportWith([]);
    const whales = await exportWith(['--whales']);
    expect(whales.total).toBeGreaterThan(1n << 63n);
    expect(whales.max).toBe(1_500_000_000_000_000_000n);
    expect(plain.max).toBeLessThan(10n ** 15n);
  });

  it('rejects bad flags with a message', async () => {
    await expect(cli().parseAsync(['node', 'x', 'simulate', '--faults', 'teapot=1'])).rejects.toThrow(/unknown fault kind/);
    await expect(cli().parseAsync(['node', 'x', 'simulate', '--days', '-3'])).rejects.toThrow(/--days/);
    await expect(cli().parseAsync(['node', 'x', 'simulate', '--port', '70000'])).rejects.toThrow(/--port/);
  });

  it('runs as a process: prints its URLs, serves JSON-RPC, exports again and exits 0 on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-cli-'));
    const file = join(dir, 'events.ndjson');
    const args = ['simulate', '--port', '0', '--days', '1', '--plays-per-day', '100', '--live-rate', '0', '--export-events', file];
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '-e', "import('./src/cli/main.ts').then((m) => m.main(['node', 'gamba-analytics', ...process.argv.slice(1)]))", ...args],
      { cwd: new URL('../../', import.meta.url).pathname, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL printed: ${out}`)), 30_000);
      child.stdout.on('data', () => {
        const m = /JSON-RPC\s+(http:\/\/\S+)/.exec(out);
        if (m && out.includes('exported')) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      child.once('exit', (code) => reject(new Error(`exited early (${code}): ${out}`)));
    });
    expect(out).toMatch(/WebSocket\s+ws:\/\//);
    expect(out).toMatch(/Hermes\s+http:\/\/\S+\/hermes/);
    expect(out).toMatch(/Jupiter\s+http:\/\/\S+\/jupiter\/price\/v3/);
    expect(typeof (await rpc(url, 'getSlot')).result).toBe('number');
    const code = await new Promise<number | null>((resolve) => {
      child.once('exit', (c) => resolve(c));
      child.kill('SIGTERM');
    });
    expect(code).toBe(0);
    expect(out.match(/exported \d+ events/g)).toHaveLength(2);
    expect(readFileSync(file, 'utf8').split('\n').length).toBeGreaterThan(50);
  });
});
