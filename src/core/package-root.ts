import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The directory of this package (the one holding its package.json), found from the URL of a module
 * of it (`import.meta.url`) by walking up the folders. The same module runs from `src/` (tsx), from
 * the compiled `dist/`, and from the bundle in `dist/bundle/` (docs/architecture.md "Build"), each
 * at a different depth, so a fixed `../..` cannot name the package's files. Throws when no folder
 * above the module holds a package.json.
 */
export function packageRoot(moduleUrl: string): string {
  let dir = dirname(fileURLToPath(moduleUrl));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${fileURLToPath(moduleUrl)}`);
    dir = up;
  }
}
