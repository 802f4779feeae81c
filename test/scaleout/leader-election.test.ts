/**
 * The leader lock itself (src/store/leader-lock.ts) on the machine's PostgreSQL: one holder per
 * schema, standbys win it after a release, and a leader whose lock connection is cut (a TCP
 * proxy in front of PostgreSQL) learns it has lost the lead while another process takes it.
 */
import { describe, expect, it } from 'vitest';
import { createCommon } from '../../src/core/index.js';
import { createLeaderLock, type Leadership } from '../../src/store/index.js';
import { testDatabaseUrl } from '../helpers/store.js';
import { startTcpProxy } from '../helpers/scaleout.js';

const schema = () => `lock_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
const election = (url: string, s: string) => createLeaderLock({ common: createCommon(), url, schema: s, pollIntervalMs: 100, heartbeatMs: 200 });

/** Resolves with the leadership, or 'pending' if not acquired within `ms`. */
async function within(p: Promise<Leadership>, ms: number): Promise<Leadership | 'pending'> {
  return Promise.race([p, new Promise<'pending'>((r) => setTimeout(() => r('pending'), ms))]);
}

describe('leader election (advisory lock)', () => {
  it('one holder per schema; a standby acquires after release; other schemas are independent', async () => {
    const s = schema();
    const stop = new AbortController();
    try {
      const first = await election(testDatabaseUrl(), s).acquire(stop.signal);
      const waiting = election(testDatabaseUrl(), s).acquire(stop.signal);
      expect(await within(waiting, 600)).toBe('pending');
      // Another schema has its own leader.
      const other = await election(testDatabaseUrl(), schema()).acquire(stop.signal);
      await first.release();
      const second = await within(waiting, 2000);
      expect(second).not.toBe('pending');
      await (second as Leadership).release();
      await other.release();
    } finally {
      stop.abort();
    }
  });

  it('a cut lock connection ends the leadership; a standby takes over', async () => {
    const s = schema();
    const target = new URL(testDatabaseUrl());
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const viaProxy = new URL(testDatabaseUrl());
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    const stop = new AbortController();
    try {
      const leader = await election(viaProxy.toString(), s).acquire(stop.signal);
      const standby = election(testDatabaseUrl(), s).acquire(stop.signal);
      expect(await within(standby, 500)).toBe('pending');
      await proxy.cut();
      const reason = await Promise.race([leader.lost, new Promise<'still leading'>((r) => setTimeout(() => r('still leading'), 3000))]);
      expect(reason).toBeInstanceOf(Error);
      const next = await within(standby, 5000);
      expect(next).not.toBe('pending');
      await (next as Leadership).release();
      await leader.release();
    } finally {
      stop.abort();
      await proxy.close();
    }
  });

  it('acquire rejects when aborted while standing by', async () => {
    const s = schema();
    const stop = new AbortController();
    const holder = await election(testDatabaseUrl(), s).acquire(new AbortController().signal);
    const waiting = election(testDatabaseUrl(), s).acquire(stop.signal);
    setTimeout(() => stop.abort(), 200);
    await expect(waiting).rejects.toMatchObject({ code: 'ABORTED' });
    await holder.release();
  });
});
