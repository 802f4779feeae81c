import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { createCommon } from '../../src/core/index.js';
import { subscribeLogs, type LogsNotification } from '../../src/solana/index.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

const waitFor = async (fn: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error('timeout');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('logsSubscribe wake-up signal', () => {
  it('subscribes with mentions + commitment, delivers notifications, and resubscribes after a drop', async () => {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((r) => wss.once('listening', r));
    closers.push(() => new Promise((r) => wss.close(() => r())));
    const requests: any[] = [];
    const sockets: WebSocket[] = [];
    wss.on('connection', (ws) => {
      sockets.push(ws);
      ws.on('message', (raw) => {
        const req = JSON.parse(raw.toString());
        requests.push(req);
        ws.send(JSON.stringify({ jsonrpc: '2.0', result: 24040, id: req.id }));
        ws.send(
          JSON.stringify({
            jsonrpc: '2.0',
            method: 'logsNotification',
            params: { result: { context: { slot: 5208469 + sockets.length }, value: { signature: `sig${sockets.length}`, err: null, logs: null } }, subscription: 24040 },
          }),
        );
      });
    });
    const got: LogsNotification[] = [];
    let subscribed = 0;
    const sub = subscribeLogs({
      common: createCommon(),
      url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
      address: 'Gamba2hK6KV3quKq854B3sQG1WMdq3zgQLPKqyK4qS18',
      onLogs: (n) => got.push(n),
      onSubscribed: () => subscribed++,
      maxReconnectDelayMs: 100,
    });
    closers.push(() => sub.close());
    await waitFor(() => got.length === 1);
    expect(requests[0]).toMatchObject({ method: 'logsSubscribe', params: [{ mentions: ['Gamba2hK6KV3quKq854B3sQG1WMdq3zgQLPKqyK4qS18'] }, { commitment: 'confirmed' }] });
    expect(got[0]).toEqual({ signature: 'sig1', err: null, slot: 5208470 });
    expect(sub.connected).toBe(true);
    sockets[0]!.terminate();
    await waitFor(() => got.length === 2 && subscribed === 2);
    expect(got[1]!.signature).toBe('sig2');
  });
});
