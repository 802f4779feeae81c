#!/usr/bin/env node
// Bundles the compiled CLI (dist/cli/main.js) and the store's reader thread
// (dist/store/readers/worker.js) into dist/bundle/: main.js, worker.js and the chunks they share,
// with the dependencies' JavaScript inside. `bin/gamba-analytics.js` runs dist/bundle/main.js.
// Run by `npm run build` after the compiler; usage: node scripts/bundle-cli.js
// (test/helpers/cli-bundle-setup.ts imports bundleCli to bundle the sources the same way for the tests)
//
// Why (docs/architecture.md "Build"): each ES module Node loads keeps its own record, source text
// and compiled code, and every reader thread loads the query modules again in its own isolate.
// One file per entry (plus shared chunks) instead of ≈ 1,500 module files lowers the API
// process's resident memory at rest (docs/benchmarks.md "Bundled CLI"). Code loaded lazily
// (simulator, indexer, Yellowstone) stays in chunks of its own, loaded only by the process that
// imports it.
//
// Left outside the bundle (imported from node_modules at run time), each for a reason:
// - native addons and the code that loads them: better-sqlite3, pg-native, bufferutil,
//   utf-8-validate, @triton-one/yellowstone-grpc;
// - packages that find files next to their own sources (__dirname) or run worker files of their
//   own: @fastify/swagger, @fastify/swagger-ui, @grpc/grpc-js, pino, pino-pretty, commander, ioredis;
// - piscina: the reader thread reads `workerData` from the same piscina module instance that
//   started it.
import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'bundle');

/** Packages imported from node_modules at run time (see above). */
export const EXTERNAL_PACKAGES = [
  'better-sqlite3',
  'pg-native',
  'bufferutil',
  'utf-8-validate',
  '@triton-one/yellowstone-grpc',
  '@grpc/grpc-js',
  '@fastify/swagger',
  '@fastify/swagger-ui',
  'pino',
  'pino-pretty',
  'commander',
  'ioredis',
  'piscina',
];

/**
 * Bundles `entryPoints` ({ name: path }: compiled .js or TypeScript sources, esbuild reads both)
 * into `outdir`, emptied first: one file per entry name plus the chunks they share. A reader
 * pool in the bundle starts `worker.js` of the same directory, so an entry set that serves
 * queries names `worker` too.
 */
export async function bundleCli(entryPoints, outdir) {
  rmSync(outdir, { recursive: true, force: true });
  await build({
    entryPoints,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: ['node20'],
    external: EXTERNAL_PACKAGES,
    // CommonJS dependencies inside an ES module bundle call `require` for Node's built-ins.
    banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
    // Whitespace only: names stay, so stack traces still read.
    minifyWhitespace: true,
    legalComments: 'none',
    outdir,
    entryNames: '[name]',
    logLevel: 'warning',
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // Entry names are the file names the code expects: the reader pool starts `./worker.js` next
  // to its own module (src/store/readers/pool.ts), which is a chunk of this directory.
  await bundleCli({ main: join(root, 'dist', 'cli', 'main.js'), worker: join(root, 'dist', 'store', 'readers', 'worker.js') }, out);
  console.log(`cli: bundled into ${out}`);
}
