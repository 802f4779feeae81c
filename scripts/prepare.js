#!/usr/bin/env node
// npm `prepare` script: runs on `npm ci` / `npm install` in a checkout and on `npm pack`.
// It compiles src/ to dist/ (`npm run build`) when TypeScript is installed. Without the dev
// dependencies (`npm ci --omit=dev`) there is no compiler, so it says so and succeeds:
// a production install gets dist/ from a packed release or from a build made before
// `npm prune --omit=dev` (docs/deployment.md "Installing for production").
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

function installed(specifier) {
  try {
    require.resolve(specifier);
    return true;
  } catch {
    return false;
  }
}

// Both, because the build needs the compiler and the Node type definitions (tsconfig.json "types").
if (!installed('typescript') || !installed('@types/node/package.json')) {
  console.log('prepare: TypeScript is not installed (dev dependencies omitted), so dist/ is not built; see docs/deployment.md "Installing for production"');
  process.exit(0);
}
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const build = spawnSync(npm, ['run', 'build'], { stdio: 'inherit' });
process.exit(build.status ?? 1);
