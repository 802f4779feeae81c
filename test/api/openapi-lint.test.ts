import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type TestApp, buildTestApp } from '../helpers/app.js';
import { http } from '../helpers/api-operations.js';

/**
 * The served /openapi.json is accepted as is by the tools clients use (docs/design.md §4
 * "Versioning"): `@redocly/cli lint` with the repository's redocly.yaml (recommended rules) and
 * Spectral with .spectral.yaml (`spectral:oas`) report 0 errors and 0 warnings. Both run offline:
 * local configuration files, Redocly's telemetry and update check off.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'node_modules/.bin');
const run = promisify(execFile);
const OFFLINE = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_UPDATE_NOTIFIER: '1' };

let t: TestApp;
let dir: string;
let file: string;
beforeAll(async () => {
  t = await buildTestApp();
  const res = await http(t.baseUrl, '/openapi.json');
  expect(res.status).toBe(200);
  dir = mkdtempSync(join(tmpdir(), 'gamba-openapi-'));
  file = join(dir, 'openapi.json');
  writeFileSync(file, res.text);
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs a linter; its exit code is not trusted alone, the parsed report is what is checked. */
async function lint(cmd: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  try {
    return await run(join(BIN, cmd), args, { cwd: dir, env: OFFLINE, maxBuffer: 64 * 1024 * 1024 });
  } catch (err) {
    const e = err as { stdout: string; stderr: string };
    return { stdout: e.stdout, stderr: e.stderr };
  }
}

test('redocly lint (recommended): 0 errors, 0 warnings', async () => {
  const { stdout, stderr } = await lint('redocly', ['lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format=json']);
  const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string }[] };
  expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`), stderr).toEqual([]);
  expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
}, 60_000);

test('spectral lint (spectral:oas): 0 errors, 0 warnings', async () => {
  const out = join(dir, 'spectral.json');
  const { stderr } = await lint('spectral', ['lint', file, '--ruleset', join(ROOT, '.spectral.yaml'), '--format', 'json', '--output', out, '--fail-severity', 'hint']);
  const results = JSON.parse(readFileSync(out, 'utf8')) as { code: string; message: string; path: string[] }[];
  expect(results.map((r) => `${r.code}: ${r.message} at ${r.path.join('.')}`), stderr).toEqual([]);
}, 60_000);

test('the lint is not vacuous: a document with a known fault fails both', async () => {
  const bad = JSON.parse(readFileSync(file, 'utf8'));
  delete bad.servers;
  delete bad.paths['/players'].get.operationId;
  const badFile = join(dir, 'bad.json');
  writeFileSync(badFile, JSON.stringify(bad));
  const redocly = await lint('redocly', ['lint', badFile, '--config', join(ROOT, 'redocly.yaml'), '--format=json']);
  const report = JSON.parse(redocly.stdout.slice(redocly.stdout.indexOf('{'))) as { problems: { ruleId: string }[] };
  expect(report.problems.map((p) => p.ruleId)).toEqual(expect.arrayContaining(['no-empty-servers', 'operation-operationId']));
  const out = join(dir, 'bad-spectral.json');
  await lint('spectral', ['lint', badFile, '--ruleset', join(ROOT, '.spectral.yaml'), '--format', 'json', '--output', out]);
  const codes = (JSON.parse(readFileSync(out, 'utf8')) as { code: string }[]).map((r) => r.code);
  expect(codes).toEqual(expect.arrayContaining(['oas3-api-servers', 'operation-operationId']));
}, 60_000);
