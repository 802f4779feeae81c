import { performance } from 'node:perf_hooks';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { keysetKinds, type KeysetPosition, type KeyValue, type Page } from '../../store/index.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { apiError, invalidParameter } from '../errors.js';
import { PARAMS, queryOf } from '../params.js';
import { protectedErrors } from '../schemas.js';
import type { StreamHub } from '../stream.js';
import type { RouteDeps } from '../types.js';
import { poolChangeJson, settledGameJson } from './events.js';

/**
 * `GET /stream/settledGames` and `GET /stream/poolChanges` (docs/design.md §11 "Live streams"):
 * Server-Sent Events of the events the store holds after a position, in keyset order (time,
 * signature, event index ascending), with the lists' filters. Each event's `id` is its keyset
 * position (the opaque cursor text of the ascending time ordering); a client reconnecting with
 * `Last-Event-ID` resumes right after it, from the store: no gap, no duplicate.
 */

/** Rows per store read of a stream. */
const STREAM_PAGE_ROWS = 500;

const settledQuery = queryOf({
  onlyJackpots: PARAMS.onlyJackpots,
  creator: PARAMS.creator,
  pool: PARAMS.pool,
  token: PARAMS.token,
  user: PARAMS.user,
});
const poolChangesQuery = queryOf({ pool: PARAMS.poolRequired });

/** One kind of stream: reads a page after a position in either direction; names and renders its rows. */
interface StreamSource<T extends { time: number; signature: string; event_index: number }> {
  event: string;
  read(after: KeysetPosition | undefined, limit: number, sorting: 'ASC' | 'DESC'): Promise<Page<T>>;
  json(row: T): object;
  kinds: ReturnType<typeof keysetKinds>;
  /** Block time (ms) of the newest game stored, whatever the stream's filters; undefined when none. */
  newest(): Promise<number | undefined>;
}

const keyOf = (r: { time: number; signature: string; event_index: number }): KeyValue[] => [r.time, r.signature, r.event_index];

/** The SSE answer's headers: those the hooks set (request id, rate limit, CORS, security) plus the stream's. */
function streamHeaders(reply: FastifyReply): Record<string, string | number | string[]> {
  return {
    ...(reply.getHeaders() as Record<string, string | number | string[]>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    // Proxies (nginx) must pass events through as they come.
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
  };
}

/**
 * Runs one stream on the hijacked reply until the client leaves or the hub ends it. The start
 * position is `Last-Event-ID` when given, else the newest matching event at connect (the stream
 * carries what is indexed from then on).
 */
async function openStream<T extends { time: number; signature: string; event_index: number }>(
  request: FastifyRequest,
  reply: FastifyReply,
  hub: StreamHub,
  source: StreamSource<T>,
): Promise<FastifyReply> {
  const lastEventId = request.headers['last-event-id'];
  let position: KeysetPosition | undefined;
  if (typeof lastEventId === 'string' && lastEventId !== '') {
    try {
      position = decodeCursor(lastEventId, 'time', 'ASC', source.kinds);
    } catch {
      throw invalidParameter('Last-Event-ID', 'must be the id of an event of this stream');
    }
  } else {
    const newest = await source.read(undefined, 1, 'DESC');
    const top = newest.results[0];
    position = top === undefined ? undefined : { values: keyOf(top) };
  }

  if (request.method === 'HEAD') {
    // The headers of a stream and no body: nothing is held open.
    reply.hijack();
    reply.raw.writeHead(200, streamHeaders(reply));
    reply.raw.end();
    return reply;
  }
  const key = request.apiKey?.id ?? request.ip;
  const { heartbeatMs, settleMs } = hub.options;
  let closed = false;
  let pumping = false;
  let again = false;
  let heartbeat: NodeJS.Timeout | undefined;
  let settleTimer: NodeJS.Timeout | undefined;
  /** The held-back newest second: its time (ms) and when it was first seen (performance.now()). */
  let pending: { time: number; since: number } | undefined;
  const res = reply.raw;
  // Reads after the handler returned take a slot of the key's fair share each (plugins/concurrency.ts).
  const slot = request.storeSlot;
  const inSlot = <R>(fn: () => Promise<R>): Promise<R> => (slot ? slot(fn) : fn());
  /** Block time of the newest stored game (any filter), ms; -Infinity on an empty store. */
  const newestGameTime = async (): Promise<number> => (await inSlot(() => source.newest())) ?? Number.NEGATIVE_INFINITY;

  const handle = {
    wake: () => void pump(),
    end: () => finish(),
  };
  const release = hub.open(key, handle);
  if (release === undefined) {
    throw apiError('TOO_MANY_STREAMS', `This API key already holds ${hub.options.maxPerKey} open streams`, { retryAfter: 1 });
  }

  const finish = (): void => {
    if (closed) return;
    closed = true;
    release();
    clearTimeout(heartbeat);
    clearTimeout(settleTimer);
    if (!res.writableEnded) res.end();
  };
  const armHeartbeat = (): void => {
    clearTimeout(heartbeat);
    heartbeat = setTimeout(() => {
      if (closed) return;
      res.write(': heartbeat\n\n');
      armHeartbeat();
    }, heartbeatMs);
    heartbeat.unref();
  };
  /** Writes `text`; resolves once the socket can take more (backpressure: a slow client holds only its own stream). */
  const write = (text: string): Promise<void> | undefined => {
    if (res.write(text)) return undefined;
    return new Promise((resolve) => {
      const done = (): void => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
  };

  /** Reads the store after the last delivered position and sends what is settled (see StreamOptions.settleMs). */
  async function pump(): Promise<void> {
    if (closed) return;
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    try {
      do {
        again = false;
        for (;;) {
          const page = await inSlot(() => source.read(position, STREAM_PAGE_ROWS, 'ASC'));
          if (closed) return;
          let rows = page.results;
          if (page.next === null && rows.length > 0) {
            // The end of what is stored: events of the store's newest block second may still be
            // incomplete (the tail commits in chain order, so a later second proves the earlier
            // ones complete). Hold them back until a later game is stored, or for settleMs.
            const horizon = await newestGameTime();
            if (closed) return;
            const held = rows.filter((r) => r.time >= horizon);
            if (held.length > 0) {
              const heldTime = held[0]!.time;
              if (pending?.time !== heldTime) pending = { time: heldTime, since: performance.now() };
              const waited = performance.now() - pending.since;
              if (waited < settleMs) {
                rows = rows.filter((r) => r.time < horizon);
                clearTimeout(settleTimer);
                settleTimer = setTimeout(() => void pump(), Math.ceil(settleMs - waited) + 1);
                settleTimer.unref();
              }
            }
          }
          let text = '';
          for (const r of rows) {
            const id = encodeCursor('time', 'ASC', { values: keyOf(r) });
            text += `id: ${id}\nevent: ${source.event}\ndata: ${JSON.stringify(source.json(r))}\n\n`;
            position = { values: keyOf(r) };
          }
          if (text !== '') {
            armHeartbeat();
            const wait = write(text);
            if (wait) await wait;
          }
          if (page.next === null || closed) break;
        }
      } while (again && !closed);
    } catch (err) {
      // A store read failed (deadline, outage): the stream stays open; the next wake reads again.
      request.log.warn({ msg: 'stream read failed', err: String(err) });
    } finally {
      pumping = false;
    }
  }

  reply.hijack();
  res.writeHead(200, streamHeaders(reply));
  // Reconnect delay for EventSource clients, ms.
  res.write('retry: 2000\n\n');
  res.on('close', finish);
  armHeartbeat();
  void pump();
  return reply;
}

/** Registers the two stream routes on the protected scope (auth and one request of the rate budget on open). */
export function registerStreamRoutes(scope: FastifyInstance, deps: RouteDeps & { hub: StreamHub }): void {
  const { store, hub } = deps;
  const newest = async (): Promise<number | undefined> =>
    (await store.queries.settledGames({ orderBy: 'time', sorting: 'DESC', page: 0, itemsPerPage: 1, onlyJackpots: false })).results[0]?.time;
  const sse = { description: 'Server-Sent Events (text/event-stream)', content: { 'text/event-stream': { schema: { type: 'string' } } } };
  const headers = {
    type: 'object',
    properties: {
      'last-event-id': { type: 'string', maxLength: 512, description: 'Resume after this event: the `id` of the last event received (EventSource sends it on reconnect)' },
    },
  } as const;

  scope.get('/stream/settledGames', {
    // A live stream is never a cached answer, nor one that other requests wait for (plugins/cache.ts).
    config: { uncached: true },
    schema: {
      tags: ['events'],
      summary: 'Live settled games (Server-Sent Events); Last-Event-ID resumes after an event',
      querystring: settledQuery.schema,
      headers,
      response: { 200: sse, ...protectedErrors },
    },
  }, async (request, reply) => {
    const q = settledQuery.parse(request.query);
    return openStream(request, reply, hub, {
      event: 'settledGame',
      kinds: keysetKinds('settledGames', 'time'),
      newest,
      read: (after, limit, sorting) => store.queries.settledGames({ ...q, orderBy: 'time', sorting, page: 0, itemsPerPage: limit, after }),
      json: (g) => {
        const { event_index: _, ...out } = settledGameJson(g);
        return out;
      },
    });
  });

  scope.get('/stream/poolChanges', {
    // A live stream is never a cached answer, nor one that other requests wait for (plugins/cache.ts).
    config: { uncached: true },
    schema: {
      tags: ['events'],
      summary: 'Live deposits and withdrawals of one pool (Server-Sent Events); Last-Event-ID resumes after an event',
      querystring: poolChangesQuery.schema,
      headers,
      response: { 200: sse, ...protectedErrors },
    },
  }, async (request, reply) => {
    const q = poolChangesQuery.parse(request.query);
    return openStream(request, reply, hub, {
      event: 'poolChange',
      kinds: keysetKinds('poolChanges'),
      newest,
      read: (after, limit, sorting) => store.queries.poolChanges({ ...q, sorting, page: 0, itemsPerPage: limit, after }),
      json: (c) => {
        const { event_index: _, ...out } = poolChangeJson(c);
        return out;
      },
    });
  });
}
