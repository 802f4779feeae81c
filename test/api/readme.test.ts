import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { OPERATIONS } from '../helpers/api-operations.js';

/** The README documents every operation with a curl example and keeps its two-command Quickstart (docs/architecture.md). */
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

test.each(OPERATIONS)('README has a curl example for $method $path', (op) => {
  const line = readme.split('\n').find((l) => l.includes(`\`${op.method} ${op.path}\``) && l.includes('curl'));
  expect(line, `${op.method} ${op.path}`).toBeDefined();
  expect(line).toContain('X-API-Key: $KEY');
  expect(line).toContain(`$BASE${op.path}`);
  if (op.method === 'POST') expect(line).toContain('-X POST');
});

test('Quickstart has exactly two commands: npm ci && npm start, npm test', () => {
  const quick = readme.split('## Quickstart')[1]!.split('\n## ')[0]!;
  const blocks = [...quick.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
  expect(blocks).toEqual(['npm ci && npm start', 'npm test']);
});

test('the configuration table names the variables src/config reads', () => {
  const src = readFileSync(new URL('../../src/config/index.ts', import.meta.url), 'utf8');
  const vars = new Set([...src.matchAll(/env(?:\.|, ')([A-Z][A-Z0-9_]+)/g)].map((m) => m[1]!));
  expect(vars.size).toBeGreaterThan(10);
  for (const v of vars) expect(readme, v).toContain(`\`${v}\``);
});
