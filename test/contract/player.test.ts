/**
 * GET /player against the oracle (docs/spec.md §2 Player statistics; docs/design.md §4 favorite_token,
 * biggest_win/loss, 404 PLAYER_NOT_FOUND), for many players under each filter combination.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectJson } from '../helpers/compare.js';
import { setupContract, type Contract } from '../helpers/contract-world.js';

let c: Contract;
beforeAll(async () => {
  c = await setupContract();
});
afterAll(async () => {
  await c?.close();
});

describe('GET /player', () => {
  it('every player, no filter', async () => {
    const users = [...new Set(c.oracle.games.map((g) => g.user))];
    expect(users.length).toBeGreaterThan(200);
    for (const user of users) {
      const r = await c.get('/player', { user });
      expect(r.status, user).toBe(200);
      expectJson(r.body, c.oracle.player({ user }), `/player?user=${user}`);
    }
  });

  it('the whale: USD beyond 1e9, favorite token BONK by plays', async () => {
    const r = await c.get('/player', { user: c.fixture.whale });
    expectJson(r.body, c.oracle.player({ user: c.fixture.whale }), 'whale');
    expect(r.body.favorite_token).toBe(c.fixture.tokens.BONK);
    expect(r.body.biggest_loss_usd).toBeLessThan(-1e8);
  });

  it('filtered by creator, by token, and by both', async () => {
    const { fixture, oracle } = c;
    const users = fixture.users.slice(0, 25).concat(fixture.whale);
    const tokens = Object.values(fixture.tokens);
    const creators = fixture.creators.slice(0, 4);
    let found = 0;
    let missing = 0;
    for (const user of users) {
      const combos = [
        ...creators.map((creator) => ({ creator })),
        ...tokens.map((token) => ({ token })),
        ...creators.slice(0, 2).flatMap((creator) => tokens.slice(0, 3).map((token) => ({ creator, token }))),
      ];
      for (const q of combos) {
        const expected = oracle.player({ user, ...q });
        const r = await c.get('/player', { user, ...q });
        if (expected === undefined) {
          missing++;
          expect(r.status, JSON.stringify(q)).toBe(404);
          expect(r.body.code).toBe('PLAYER_NOT_FOUND');
        } else {
          found++;
          expect(r.status, JSON.stringify(q)).toBe(200);
          expectJson(r.body, expected, `/player user=${user} ${JSON.stringify(q)}`);
        }
      }
    }
    expect(found).toBeGreaterThan(100);
    expect(missing).toBeGreaterThan(20);
  });

  it('a player with only un-priced games has zero USD but real counts', async () => {
    const { oracle, fixture } = c;
    const user = fixture.users.find((u) => {
      const gs = oracle.games.filter((g) => g.user === u && g.token === fixture.tokens.NOPE);
      return gs.length >= 2;
    })!;
    const expected = oracle.player({ user, token: fixture.tokens.NOPE })!;
    expect(expected.total_volume_usd).toBe(0);
    const r = await c.get('/player', { user, token: fixture.tokens.NOPE });
    expectJson(r.body, expected, 'un-priced player');
  });

  it('unknown player → 404 PLAYER_NOT_FOUND', async () => {
    const r = await c.get('/player', { user: c.fixture.creators[0]! });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('PLAYER_NOT_FOUND');
  });
});
