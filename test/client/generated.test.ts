/**
 * The SDK's generated files (packages/client/openapi.json, src/schema.d.ts, src/operations.ts)
 * are what scripts/client-schema.ts writes from the live document today: an operation or answer
 * shape changed without regenerating them fails here. Fix: `node --import tsx scripts/client-schema.ts`.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLIENT_DIR, clientFiles, liveDocument } from '../../scripts/client-schema.js';

describe('packages/client generated files', () => {
  it('equal what the generator writes from the live OpenAPI document', async () => {
    const doc = await liveDocument();
    expect(Object.keys(doc.paths).length).toBeGreaterThan(20);
    const files = await clientFiles(doc);
    for (const [name, text] of Object.entries(files)) {
      const committed = readFileSync(join(CLIENT_DIR, name), 'utf8');
      // A short message first (which file), then the full comparison.
      expect(committed === text, `packages/client/${name} is stale: run node --import tsx scripts/client-schema.ts`).toBe(true);
    }
    // The committed types name every path of the document.
    const schema = readFileSync(join(CLIENT_DIR, 'src/schema.d.ts'), 'utf8');
    for (const path of Object.keys(doc.paths)) expect(schema, path).toContain(`"${path}": {`);
  }, 120_000);

  it('the package imports nothing but openapi-fetch and its own files (no src: it talks HTTP only; docs/architecture.md)', () => {
    const dir = join(CLIENT_DIR, 'src');
    const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
    expect(files).toContain('index.ts');
    for (const f of files) {
      const text = readFileSync(join(dir, f), 'utf8');
      const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"\n;]*?from\s+'([^']+)'/g)].map((m) => m[1]!);
      for (const s of specifiers) expect(s === 'openapi-fetch' || /^\.\/[\w-]+\.js$/.test(s), `${f} imports ${s}`).toBe(true);
      if (f === 'index.ts') expect(specifiers).toEqual(expect.arrayContaining(['openapi-fetch', './operations.js', './schema.js']));
    }
  });
});
