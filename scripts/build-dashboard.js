#!/usr/bin/env node
// Builds the web dashboard (dashboard/, docs/design.md §12) into static files: dist/dashboard/
// index.html, app.js (one minified ES module: the page's code, uPlot included) and app.css.
// Run by `npm run build` after the compiler; no network, no CDN. Usage:
//   node scripts/build-dashboard.js [outdir]
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = resolve(process.argv[2] ?? join(root, 'dist', 'dashboard'));
mkdirSync(out, { recursive: true });
await build({
  entryPoints: { app: join(root, 'dashboard', 'src', 'main.ts') },
  bundle: true,
  format: 'esm',
  target: ['es2022'],
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  outdir: out,
  logLevel: 'warning',
});
copyFileSync(join(root, 'dashboard', 'index.html'), join(out, 'index.html'));
console.log(`dashboard: built into ${out}`);
