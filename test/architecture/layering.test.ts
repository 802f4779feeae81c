import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { tsFiles } from '../helpers/source-files.js';

/**
 * The import arrows of docs/architecture.md ("Layout"), enforced. The allowed imports are read
 * from the layout table itself, so the document and the code cannot drift apart:
 * - a folder imports only the folders its row names ("everything" for the CLI);
 * - an entry written "x (types)" or "… (types only)" allows `import type` only;
 * - across folders, imports go through the folder's public entry (`index.ts`), or the light
 *   entries the table's row names (ingest's `controller.ts`);
 * - nothing imports `src/cli`, and nothing in `src` imports tests, benchmarks or scripts.
 */

const root = resolve(import.meta.dirname, '../..');
const src = join(root, 'src');

interface Rule {
  /** Folders importable with value imports. */
  values: Set<string>;
  /** Folders importable with `import type` only. */
  typesOnly: Set<string>;
  everything: boolean;
}

/** Parses the layout table: | `src/x` | holds | imports |. */
function readRules(): Map<string, Rule> {
  const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
  const layout = doc.slice(doc.indexOf('## Layout'));
  const rules = new Map<string, Rule>();
  for (const line of layout.split('\n')) {
    const m = /^\|\s*`src\/([a-z-]+)`\s*\|.*\|\s*([^|]+?)\s*\|\s*$/.exec(line);
    if (!m) continue;
    const [, folder, imports] = m as unknown as [string, string, string];
    const rule: Rule = { values: new Set(), typesOnly: new Set(), everything: /^everything/.test(imports) };
    if (imports !== 'nothing' && !rule.everything) {
      for (const part of imports.split(',')) {
        const entry = part.trim();
        const name = /^([a-z-]+)/.exec(entry)?.[1];
        if (!name) throw new Error(`layout table: cannot read "${entry}" in the row of src/${folder}`);
        const folderName = name === 'ingest' || entry.startsWith("ingest's") ? 'ingest' : name;
        if (/\(types( only)?\)/.test(entry)) rule.typesOnly.add(folderName);
        else rule.values.add(folderName);
      }
    }
    rules.set(folder, rule);
  }
  return rules;
}

interface Import {
  specifier: string;
  typeOnly: boolean;
  line: number;
}

/** Every static import/export-from and dynamic import() with a string literal, with whether it is type-only. */
function importsOf(file: string, text: string = readFileSync(file, 'utf8')): Import[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: Import[] = [];
  const lineOf = (n: ts.Node): number => sf.getLineAndCharacterOfPosition(n.getStart()).line + 1;
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      out.push({ specifier: node.moduleSpecifier.text, typeOnly, line: lineOf(node) });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      out.push({ specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly, line: lineOf(node) });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      out.push({ specifier: node.arguments[0].text, typeOnly: false, line: lineOf(node) });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      out.push({ specifier: node.argument.literal.text, typeOnly: true, line: lineOf(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** The top-level folder of src a path lies in, or undefined outside src. */
function folderOf(path: string): string | undefined {
  const rel = relative(src, path);
  if (rel.startsWith('..')) return undefined;
  return rel.split(sep)[0];
}

/** Public entries of a folder that other folders may import. */
function isEntry(folder: string, target: string): boolean {
  const rel = relative(join(src, folder), target).split(sep).join('/').replace(/\.(js|ts)$/, '');
  return rel === 'index' || (folder === 'ingest' && rel === 'controller');
}

/** Violations among `files` (absolute paths; `text` read from disk unless given). */
function violations(files: { path: string; text?: string }[] = tsFiles(src).map((path) => ({ path }))): string[] {
  const rules = readRules();
  const found: string[] = [];
  for (const { path: file, text } of files) {
    const from = folderOf(file)!;
    const rule = rules.get(from);
    const where = relative(root, file);
    if (!rule) {
      found.push(`${where}: src/${from} has no row in the layout table of docs/architecture.md`);
      continue;
    }
    for (const imp of importsOf(file, text)) {
      if (!imp.specifier.startsWith('.')) continue; // packages and node: builtins
      const target = resolve(dirname(file), imp.specifier);
      const to = folderOf(target);
      const at = `${where}:${imp.line} imports ${imp.specifier}`;
      if (to === undefined) {
        found.push(`${at}: src imports nothing outside src`);
        continue;
      }
      if (to === from) continue;
      if (to === 'cli') {
        found.push(`${at}: nothing imports src/cli`);
        continue;
      }
      if (!isEntry(to, target)) found.push(`${at}: another folder is imported through its entry (src/${to}/index.ts)`);
      if (rule.everything) continue;
      if (rule.values.has(to)) continue;
      if (rule.typesOnly.has(to)) {
        if (!imp.typeOnly) found.push(`${at}: src/${from} may import src/${to} for types only (use import type)`);
        continue;
      }
      found.push(`${at}: src/${from} may not import src/${to} (docs/architecture.md, Layout)`);
    }
  }
  return found;
}

describe('layering (docs/architecture.md, Layout)', () => {
  it('reads a rule for every folder of src from the layout table', () => {
    const rules = readRules();
    const folders = readdirSync(src).filter((n) => statSync(join(src, n)).isDirectory());
    expect(folders.filter((f) => !rules.has(f))).toEqual([]);
    // The table is read, not assumed: the CLI may import everything, core nothing.
    expect(rules.get('cli')?.everything).toBe(true);
    expect(rules.get('core')?.values.size).toBe(0);
  });

  it('every import in src points along the arrows', () => {
    expect(violations()).toEqual([]);
  });

  it('refuses imports against the arrows (the check itself can fail)', () => {
    const at = (path: string, text: string) => violations([{ path: join(src, path), text }]);
    expect(at('core/x.ts', "import { createStore } from '../store/index.js';")).toHaveLength(1);
    expect(at('api/x.ts', "import { listSettledGames } from '../store/queries/events.js';")).toHaveLength(1);
    expect(at('store/x.ts', "import { loadConfig } from '../config/index.js';")).toHaveLength(1);
    expect(at('store/x.ts', "export type { Config } from '../config/index.js';")).toEqual([]);
    expect(at('store/x.ts', "import type { Config } from '../config/index.js';")).toEqual([]);
    expect(at('store/x.ts', "type C = import('../config/index.js').Config;")).toEqual([]);
    expect(at('api/x.ts', "const m = await import('../cli/main.js');")).toHaveLength(1);
    expect(at('api/x.ts', "import { x } from '../../test/helpers/app.js';")).toHaveLength(1);
    expect(at('api/x.ts', "import type { SyncController } from '../ingest/controller.js';")).toEqual([]);
    expect(at('api/x.ts', "import { createIndexer } from '../ingest/index.js';")).toHaveLength(1);
    expect(at('cli/x.ts', "import { createIndexer } from '../ingest/index.js';")).toEqual([]);
  });
});
