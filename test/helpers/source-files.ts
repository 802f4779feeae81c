import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every TypeScript source file below `dir` (recursively), declaration files excluded. */
export function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...tsFiles(path));
    else if (/\.(ts|mts)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}
