#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ and bundled into dist/bundle/ by `npm run build`
// (run by `prepare` on `npm ci` when the dev dependencies are installed; a packed release ships
// dist/). The bundle is what runs: docs/architecture.md "Build".
import { existsSync } from 'node:fs';

const entry = new URL('../dist/bundle/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error(
    'gamba-analytics is not built: dist/ is missing (no dist/bundle/main.js). Run `npm ci` (it builds with the dev dependencies) or `npm run build`; ' +
      'to install without dev dependencies use a packed release (docs/deployment.md "Installing for production").',
  );
  process.exit(1);
}
const { main } = await import(entry.href);

main(process.argv).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
