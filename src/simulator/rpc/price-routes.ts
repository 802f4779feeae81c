import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { hourOfMs, slotAtMs, TOKEN_BY_MINT, TOKENS, type ChainClock, type PriceBook, type TokenDef } from '../chain/index.js';

/**
 * Price endpoints compatible with Pyth Hermes v2 (`/v2/updates/price/latest`,
 * `/v2/updates/price/{publish_time}`, `/v2/price_feeds`) and Jupiter's price API v3, serving
 * the simulated tokens' hourly price paths (docs/protocol.md §6). Any `Authorization: Bearer` or
 * `x-api-key` is accepted, and none is required.
 */

/** Path prefix of the Hermes-compatible routes (`hermesUrl` ends with it). */
export const HERMES_PREFIX = '/hermes';
/** Path of the Jupiter price v3-compatible route. */
export const JUPITER_PATH = '/jupiter/price/v3';

const FEEDS = new Map(TOKENS.filter((t) => t.pythFeedId).map((t) => [t.pythFeedId!, t]));
/** Jupiter's createdAt per token (first time the aggregator saw it; constant). */
const CREATED_AT = '2024-06-05T08:55:25.527Z';

function list(q: unknown): string[] {
  if (q === undefined) return [];
  return (Array.isArray(q) ? q : [q]).flatMap((x) => String(x).split(',')).map((x) => x.trim()).filter((x) => x !== '');
}

function hermesPrice(prices: PriceBook, t: TokenDef, publishTime: number) {
  const hour = hourOfMs(publishTime * 1000);
  const p = prices.at(t, hour);
  const prev = prices.at(t, hour - 1);
  const ema = (p.price + prev.price) / 2n;
  return {
    id: t.pythFeedId!,
    price: { price: p.price.toString(), conf: p.conf.toString(), expo: p.expo, publish_time: publishTime },
    ema_price: { price: ema.toString(), conf: ((p.conf + prev.conf) / 2n).toString(), expo: p.expo, publish_time: publishTime },
    metadata: { slot: Math.floor(publishTime * 2.5), proof_available_time: publishTime + 1, prev_publish_time: publishTime - 1 },
  };
}

function notFound(reply: FastifyReply, ids: string[]) {
  return reply.code(404).type('text/plain').send(`Price ids not found: ${ids.join(', ')}`);
}

/** Registers the Hermes and Jupiter routes on `app`; prices are those of the hour the chain clock is in, or of a requested publish time. */
export function registerPriceRoutes(app: FastifyInstance, deps: { prices: PriceBook; clock: ChainClock }): void {
  const { prices, clock } = deps;

  async function updates(reply: FastifyReply, query: Record<string, unknown>, publishTime: number) {
    const ids = list(query['ids[]'] ?? query.ids).map((id) => id.toLowerCase().replace(/^0x/, ''));
    if (ids.length === 0) return reply.code(400).type('text/plain').send('Missing required parameter: ids[]');
    const unknown = ids.filter((id) => !FEEDS.has(id));
    if (unknown.length > 0) return notFound(reply, unknown);
    const parsed = ids.map((id) => hermesPrice(prices, FEEDS.get(id)!, publishTime));
    // Stand-in for the signed accumulator update ("PNAU" magic + a digest): clients only relay it.
    const digest = createHash('sha256').update(JSON.stringify(parsed)).digest('hex');
    const encoding = query.encoding === 'base64' ? 'base64' : 'hex';
    const hex = `504e4155010000000${digest}${parsed.map((p) => p.id + BigInt(p.price.price).toString(16).padStart(16, '0')).join('')}`;
    const data = encoding === 'hex' ? hex : Buffer.from(hex.length % 2 ? hex + '0' : hex, 'hex').toString('base64');
    const body: Record<string, unknown> = { binary: { encoding, data: [data] } };
    if (query.parsed !== 'false') body.parsed = parsed;
    return reply.type('application/json').send(JSON.stringify(body));
  }

  app.get(`${HERMES_PREFIX}/v2/updates/price/latest`, (req, reply) =>
    updates(reply, req.query as Record<string, unknown>, Math.floor(clock.nowMs() / 1000)),
  );

  app.get(`${HERMES_PREFIX}/v2/updates/price/:publishTime`, (req, reply) => {
    const raw = (req.params as { publishTime: string }).publishTime;
    if (!/^\d+$/.test(raw)) return reply.code(400).type('text/plain').send(`Invalid publish_time: ${raw}`);
    return updates(reply, req.query as Record<string, unknown>, Number(raw));
  });

  app.get(`${HERMES_PREFIX}/v2/price_feeds`, (req, reply) => {
    const q = req.query as { query?: string; asset_type?: string };
    const needle = (q.query ?? '').toLowerCase();
    const out = [...FEEDS.values()]
      .filter((t) => (q.asset_type === undefined || q.asset_type.toLowerCase() === 'crypto') && t.symbol.toLowerCase().includes(needle))
      .map((t) => ({
        id: t.pythFeedId,
        attributes: {
          asset_type: 'Crypto',
          base: t.symbol,
          description: `${t.symbol.toUpperCase()} / US DOLLAR`,
          display_symbol: `${t.symbol}/USD`,
          generic_symbol: `${t.symbol}USD`,
          quote_currency: 'USD',
          symbol: `Crypto.${t.symbol}/USD`,
        },
      }));
    return reply.type('application/json').send(JSON.stringify(out));
  });

  app.get(JUPITER_PATH, (req, reply) => {
    const ids = list((req.query as Record<string, unknown>).ids);
    if (ids.length === 0) return reply.code(400).send({ error: 'Query parameter ids is required' });
    if (ids.length > 50) return reply.code(400).send({ error: 'Too many ids (max 50)' });
    const now = clock.nowMs();
    const out: Record<string, unknown> = {};
    for (const id of ids) {
      const t = TOKEN_BY_MINT.get(id);
      if (!t) continue; // tokens Jupiter cannot price are omitted (docs/protocol.md §6)
      const usd = prices.usdAtMs(t, now);
      const dayAgo = prices.usdAtMs(t, now - 86_400_000);
      out[id] = {
        createdAt: CREATED_AT,
        liquidity: Math.round(t.weight * 1_000_000 * (t.basePrice >= 1 ? 1 : 0.5) * 100) / 100,
        usdPrice: usd,
        blockId: slotAtMs(now),
        decimals: t.decimals,
        priceChange24h: (usd / dayAgo - 1) * 100,
      };
    }
    return reply.type('application/json').send(JSON.stringify(out));
  });
}
