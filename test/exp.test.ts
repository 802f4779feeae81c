import { test } from 'vitest';
import { createCommon } from '../src/core/index.js';
import { createStore } from '../src/store/index.js';
test('x', async () => {
  const path = '/tmp/exp-closed.db';
  const w = await createStore({ common: createCommon(), config: { kind: 'sqlite', path } }); await w.close();
  const r = await createStore({ common: createCommon(), config: { kind: 'sqlite', path }, access: 'readonly' });
  console.log('before', await r.keys.findByHash('ab'), await r.getState('x'));
  await r.close();
  try { console.log('found', await r.keys.findByHash('ab')); } catch (e) { console.log('err', (e as any).code, (e as Error).message); }
  try { console.log('state', await r.getState('x')); } catch (e) { console.log('err', (e as any).code, (e as Error).message); }
  try { await r.ping(); console.log('ping ok') } catch (e) { console.log('err', (e as any).code, (e as Error).message); }
});
