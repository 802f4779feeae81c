import { describe, expect, test } from 'vitest';
import { startMetricsServer } from '../../src/api/index.js';
import { createCommon } from '../../src/core/index.js';

describe('METRICS_PORT listener (docs/design.md §9)', () => {
  test('serves the process registry in Prometheus text format on loopback, and closes with the shutdown registry', async () => {
    const common = createCommon();
    common.metrics.eventsStored.inc({ kind: 'GameSettled' }, 3);
    const server = await startMetricsServer({ common, port: 0 });
    expect(new URL(server.url).hostname).toBe('127.0.0.1');
    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toMatch(/^indexer_events_stored_total\{kind="GameSettled"\} 3$/m);
    await common.shutdown.close();
    await expect(fetch(`${server.url}/metrics`)).rejects.toThrow();
  });
});
