import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { COMMITMENTS, type Commitment, type TxSkel } from '../chain/index.js';
import { canonicalJson, orderedJson } from '../json/index.js';
import { txError, type ChainView } from '../transactions/index.js';
import { errorResponse, RpcError } from './rpc.js';

/**
 * The PubSub side of the node on the same port: `logsSubscribe` / `logsUnsubscribe`
 * (filter "all" | "allWithVotes" | {mentions:[one address]}), with notifications shaped as
 * mainnet sends them (docs/protocol.md §1: `logsNotification` with context.slot and
 * {signature, err, logs}). New transactions are pushed as the head passes their slot at the
 * subscription's commitment (default finalized).
 */
interface Subscription {
  id: number;
  socket: WebSocket;
  commitment: Commitment;
  match: (tx: TxSkel) => boolean;
  /** Last slot already notified. */
  through: number;
}

const TICK_MS = 200;

/** The PubSub endpoint: takes over HTTP upgrade requests; `close` ends every subscription and socket. */
export interface LogsPubSub {
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  close(): Promise<void>;
}

/** The `logsSubscribe` PubSub over a chain view; a timer pushes notifications as the head moves. */
export function createLogsPubSub(view: ChainView): LogsPubSub {
  const wss = new WebSocketServer({ noServer: true });
  const subs = new Map<number, Subscription>();
  let nextId = 1;
  let timer: NodeJS.Timeout | null = null;
  let ticking = false;
  const tl = view.ledger.timeline;

  async function deliver(sub: Subscription, upTo: number): Promise<void> {
    const from = sub.through + 1;
    if (upTo < from) return;
    const firstSeg = Math.max(0, tl.segmentOfSlot(from));
    const lastSeg = tl.segmentOfSlot(upTo);
    for (let s = firstSeg; s <= lastSeg; s++) {
      const skel = view.ledger.skeleton(s);
      const wanted = skel.txs.filter((t) => t.slot >= from && t.slot <= upTo && sub.match(t));
      if (wanted.length === 0) continue;
      const real = await view.ledger.realize(s);
      for (const t of wanted) {
        const built = view.build(real.txs[skel.genToPos[t.gen]!]!);
        const value = { signature: view.signature(t), err: txError(t), logs: built.plan.logs };
        const msg = orderedJson({
          jsonrpc: '2.0',
          method: 'logsNotification',
          params: { result: { context: { slot: t.slot }, value }, subscription: sub.id },
        });
        if (sub.socket.readyState === sub.socket.OPEN) sub.socket.send(msg);
      }
    }
    sub.through = upTo;
  }

  async function tick(): Promise<void> {
    if (ticking) return;
    ticking = true;
    try {
      for (const sub of [...subs.values()]) {
        if (!subs.has(sub.id)) continue;
        await deliver(sub, view.clock.slot(sub.commitment));
      }
    } finally {
      ticking = false;
    }
  }

  function ensureTimer(): void {
    if (subs.size > 0 && !timer) {
      timer = setInterval(() => void tick(), TICK_MS);
      timer.unref();
    } else if (subs.size === 0 && timer) {
      clearInterval(timer);
      timer = null;
    }
  }

  function subscribe(socket: WebSocket, params: unknown[]): number {
    const filter = params[0];
    const cfg = (params[1] ?? {}) as { commitment?: unknown };
    let match: (tx: TxSkel) => boolean;
    if (filter === 'all' || filter === 'allWithVotes') match = () => true;
    else if (typeof filter === 'object' && filter !== null && Array.isArray((filter as { mentions?: unknown }).mentions)) {
      const mentions = (filter as { mentions: unknown[] }).mentions;
      if (mentions.length !== 1 || typeof mentions[0] !== 'string') throw new RpcError(-32602, 'Invalid Request: Only 1 address supported');
      const m = view.matcher(mentions[0]);
      match = m ?? (() => false);
    } else throw new RpcError(-32602, 'Invalid params');
    const commitment = (cfg.commitment ?? 'finalized') as Commitment;
    if (!COMMITMENTS.includes(commitment)) throw new RpcError(-32602, 'Invalid params');
    const id = nextId++;
    subs.set(id, { id, socket, commitment, match, through: view.clock.slot(commitment) });
    ensureTimer();
    return id;
  }

  wss.on('connection', (socket) => {
    const mine = new Set<number>();
    socket.on('message', (raw) => {
      let msg: { id?: unknown; method?: unknown; params?: unknown };
      try {
        msg = JSON.parse(raw.toString());
      } catch {
        socket.send(errorResponse(null, new RpcError(-32700, 'Parse error')));
        return;
      }
      // Requests without an id (kit's keep-alive "ping") are notifications: no answer.
      if (typeof msg !== 'object' || msg === null || !('id' in msg)) return;
      const params = Array.isArray(msg.params) ? msg.params : [];
      try {
        let result: unknown;
        if (msg.method === 'logsSubscribe') {
          result = subscribe(socket, params);
          mine.add(result as number);
        } else if (msg.method === 'logsUnsubscribe') {
          const id = params[0];
          if (typeof id !== 'number' || !mine.has(id)) throw new RpcError(-32602, 'Invalid subscription id.');
          mine.delete(id);
          subs.delete(id);
          ensureTimer();
          result = true;
        } else throw new RpcError(-32601, 'Method not found');
        socket.send(`{"jsonrpc":"2.0","result":${canonicalJson(result)},"id":${orderedJson(msg.id)}}`);
      } catch (err) {
        socket.send(errorResponse(msg.id, err instanceof RpcError ? err : new RpcError(-32603, 'Internal error')));
      }
    });
    socket.on('close', () => {
      for (const id of mine) subs.delete(id);
      ensureTimer();
    });
    socket.on('error', () => socket.terminate());
  });

  return {
    handleUpgrade(req, socket, head) {
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
    },
    async close() {
      if (timer) clearInterval(timer);
      timer = null;
      subs.clear();
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
