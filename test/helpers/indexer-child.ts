import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundledEntry } from './cli-bundle.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');

export interface IndexerChild {
  proc: ChildProcess;
  /** Resolves when the child printed `line` (rejects if it exits first). */
  waitForLine(line: string, timeoutMs?: number): Promise<void>;
  /** Resolves with the exit code / signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
}

/** Starts test/helpers/entries/index-child.ts (bundled: cli-bundle.ts) in its own Node process, env on top of ours. */
export function spawnIndexerChild(env: Record<string, string>): IndexerChild {
  const proc = spawn(process.execPath, bundledEntry('index-child'), {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const waiters: { line: string; resolve: () => void }[] = [];
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const w of [...waiters]) {
      if (out.split('\n').includes(w.line)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  proc.stdout!.on('data', onData);
  proc.stderr!.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
  return {
    proc,
    exited,
    output: () => out,
    waitForLine(line, timeoutMs = 30_000) {
      if (out.split('\n').includes(line)) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`child did not print ${line} within ${timeoutMs} ms:\n${out.slice(-2000)}`)), timeoutMs);
        waiters.push({
          line,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
        void exited.then(({ code, signal }) => {
          clearTimeout(timer);
          reject(new Error(`child exited (${code ?? signal}) before printing ${line}:\n${out.slice(-2000)}`));
        });
      });
    },
  };
}
