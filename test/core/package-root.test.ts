/**
 * packageRoot (src/core/package-root.ts): the package's folder found from a module's URL at any
 * depth (src/, dist/, dist/bundle/ — docs/architecture.md "Build").
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/core/index.js';

const tmp = mkdtempSync(join(tmpdir(), 'gamba-package-root-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('packageRoot', () => {
  it('finds the nearest folder holding a package.json, whatever the module\'s depth', () => {
    const pkg = join(tmp, 'pkg');
    for (const dir of ['src/api/plugins', 'dist/bundle', 'dist/api/plugins']) mkdirSync(join(pkg, dir), { recursive: true });
    writeFileSync(join(pkg, 'package.json'), '{}');
    for (const file of ['src/api/plugins/dashboard.ts', 'dist/bundle/main.js', 'dist/api/plugins/dashboard.js']) {
      expect(packageRoot(pathToFileURL(join(pkg, file)).href), file).toBe(pkg);
    }
    // A nested package (a workspace) is its own root.
    mkdirSync(join(pkg, 'packages/client/src'), { recursive: true });
    writeFileSync(join(pkg, 'packages/client/package.json'), '{}');
    expect(packageRoot(pathToFileURL(join(pkg, 'packages/client/src/index.ts')).href)).toBe(join(pkg, 'packages/client'));
  });

  it('is this repository for its own modules', () => {
    const repo = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
    expect(packageRoot(new URL('../../src/core/index.ts', import.meta.url).href)).toBe(repo);
  });

  it('throws when no folder above the module holds a package.json', () => {
    expect(() => packageRoot('file:///no-such-folder-anywhere/x/y.js')).toThrow(/no package.json above/);
  });
});
