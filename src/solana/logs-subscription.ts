import WebSocket from 'ws';
import type { Common } from '../core/index.js';
import type { Commitment } from './types.js';

/** One `logsNotification` (Solana WS docs, logsSubscribe): no blockTime, logs may be null. */
export interface LogsNotification {
  signature: string;
  err: unknown;
  slot: number;
}

/** What subscribeLogs takes: the endpoint, the address, the callbacks, the reconnect ceiling. */
export interface LogsSubscriptionOptions {
  common: Common;
  /** ws:// or wss:// endpoint. */
  url: string;
  /** The one address to filter on (`mentions` takes exactly one key). */
  address: string;
  commitment?: Commitment;
  onLogs(n: LogsNotification): void;
  /** Called after every successful (re)subscription: notifications may have been missed, so gap-fill. */
  onSubscribed?(): void;
  /** Reconnect delay ceiling, ms (default 30 000); doubles from 500 ms. */
  maxReconnectDelayMs?: number;
}

/** A live `logsSubscribe` (reconnecting until closed). */
export interface LogsSubscription {
  /** Whether a subscription is currently confirmed by the server. */
  readonly connected: boolean;
  close(): Promise<void>;
}

/**
 * `logsSubscribe` with `{ mentions: [address] }`, reconnecting with backoff forever until closed.
 * It is only a wake-up signal for the tail: polling stays the safety net (docs/design.md §5), so
 * nothing here needs to be reliable.
 */
export function subscribeLogs(o: LogsSubscriptionOptions): LogsSubscription {
  const { logger } = o.common;
  const maxDelay = o.maxReconnectDelayMs ?? 30_000;
  let ws: WebSocket | undefined;
  let closed = false;
  let connected = false;
  let delay = 500;
  let timer: NodeJS.Timeout | undefined;

  const connect = () => {
    if (closed) return;
    const sock = new WebSocket(o.url);
    ws = sock;
    sock.on('open', () => {
      sock.send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'logsSubscribe',
          params: [{ mentions: [o.address] }, { commitment: o.commitment ?? 'confirmed' }],
        }),
      );
    });
    sock.on('message', (raw) => {
      let msg: { id?: number; result?: unknown; error?: unknown; method?: string; params?: { result?: { context?: { slot?: number }; value?: { signature?: string; err?: unknown } } } };
      try {
        msg = JSON.parse(raw.toString());
      } catch {
        return;
      }
      if (msg.id === 1) {
        if (msg.error) {
          logger.warn({ err: msg.error }, 'logsSubscribe refused; polling only');
          sock.close();
          return;
        }
        connected = true;
        delay = 500;
        o.onSubscribed?.();
        return;
      }
      if (msg.method === 'logsNotification') {
        const v = msg.params?.result?.value;
        if (v?.signature) o.onLogs({ signature: v.signature, err: v.err ?? null, slot: msg.params?.result?.context?.slot ?? 0 });
      }
    });
    sock.on('error', (err) => logger.debug({ err: err.message }, 'logs websocket error'));
    sock.on('close', () => {
      connected = false;
      if (closed) return;
      timer = setTimeout(connect, delay);
      delay = Math.min(maxDelay, delay * 2);
    });
  };
  connect();

  return {
    get connected() {
      return connected;
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const sock = ws;
      if (!sock || sock.readyState === WebSocket.CLOSED) return;
      await new Promise<void>((resolve) => {
        sock.once('close', () => resolve());
        if (sock.readyState === WebSocket.CONNECTING) sock.terminate();
        else sock.close();
        setTimeout(() => {
          sock.terminate();
          resolve();
        }, 1000).unref();
      });
    },
  };
}
