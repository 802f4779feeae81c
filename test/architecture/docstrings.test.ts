import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { tsFiles } from '../helpers/source-files.js';

/**
 * Every exported declaration of src carries a docstring (docs/architecture.md convention 10 and
 * "Layout"): a JSDoc block right before it that says what it is, with shapes, units, errors and
 * sources where they apply. Re-exports (`export { x } from`, `export *`) are documented where
 * they are declared.
 */

const root = resolve(import.meta.dirname, '../..');
const src = join(root, 'src');

const isExported = (node: ts.Node): boolean =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** The names a top-level statement exports, or none when it exports nothing it declares. */
function exportedNames(node: ts.Statement): string[] {
  if (ts.isExportAssignment(node)) return ['default'];
  if (!isExported(node)) return [];
  if (ts.isVariableStatement(node)) return node.declarationList.declarations.map((d) => d.name.getText());
  if (
    ts.isFunctionDeclaration(node) ||
    ts.isClassDeclaration(node) ||
    ts.isInterfaceDeclaration(node) ||
    ts.isTypeAliasDeclaration(node) ||
    ts.isEnumDeclaration(node) ||
    ts.isModuleDeclaration(node)
  ) {
    return [node.name?.getText() ?? 'default'];
  }
  return [];
}

/** The text of the JSDoc block right before a statement (only whitespace between), if any. */
function docstringOf(node: ts.Statement, text: string): string | undefined {
  const ranges = ts.getLeadingCommentRanges(text, node.getFullStart()) ?? [];
  const last = ranges[ranges.length - 1];
  if (!last || last.kind !== ts.SyntaxKind.MultiLineCommentTrivia) return undefined;
  const comment = text.slice(last.pos, last.end);
  if (!comment.startsWith('/**')) return undefined;
  if (text.slice(last.end, node.getStart()).trim() !== '') return undefined;
  return comment
    .replace(/^\/\*\*|\*\/$/g, '')
    .replace(/^\s*\* ?/gm, '')
    .trim();
}

/** `file:line name` of each exported declaration without a docstring (overloads: one docstring suffices). */
export function undocumented(file: string, text: string = readFileSync(file, 'utf8')): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const documented = new Set<string>();
  const missing = new Map<string, number>();
  for (const statement of sf.statements) {
    const names = exportedNames(statement);
    if (names.length === 0) continue;
    const doc = docstringOf(statement, text);
    for (const name of names) {
      if (doc !== undefined && doc.length >= 8) documented.add(name);
      else if (!missing.has(name)) missing.set(name, sf.getLineAndCharacterOfPosition(statement.getStart()).line + 1);
    }
  }
  return [...missing].filter(([name]) => !documented.has(name)).map(([name, line]) => `${relative(root, file)}:${line} ${name}`);
}

describe('docstrings', () => {
  it('every exported declaration in src has a docstring', () => {
    const missing = tsFiles(src).flatMap((f) => undocumented(f));
    expect(missing).toEqual([]);
  });

  it('tells documented from undocumented exports (the check itself can fail)', () => {
    const file = join(src, 'x.ts');
    expect(undocumented(file, 'export function f(): void {}')).toEqual(['src/x.ts:1 f']);
    expect(undocumented(file, '// a line comment\nexport const a = 1, b = 2;')).toEqual(['src/x.ts:2 a', 'src/x.ts:2 b']);
    expect(undocumented(file, '/** */\nexport type T = string;')).toEqual(['src/x.ts:2 T']);
    expect(undocumented(file, '/** Not this one. */\nconst x = 1;\nexport interface I { a: number }')).toEqual(['src/x.ts:3 I']);
    expect(undocumented(file, '/** Milliseconds since the epoch. */\nexport type Ms = number;')).toEqual([]);
    expect(undocumented(file, "export { a } from './a.js';\nexport * from './b.js';")).toEqual([]);
    expect(
      undocumented(file, '/** Parses a slot (u64, decimal string). */\nexport function p(x: string): bigint;\nexport function p(x: number): bigint;\nexport function p(x: unknown): bigint { return 0n; }'),
    ).toEqual([]);
  });
});
