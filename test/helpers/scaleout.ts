/**
 * Scale-out test kit: the machine's Redis, a private redis-server the test may kill, a TCP
 * proxy that can cut PostgreSQL off, and the CLI as separate processes (`serve`, `index`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundledEntry } from './cli-bundle.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');

export function testRedisUrl(): string {
  return process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';
}

/** A free TCP port on 127.0.0.1 (bound then released). */
export async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

export interface Proc {
  proc: ChildProcess;
  output(): string;
  /** Resolves with the first match of `re` in the output (rejects on exit or timeout). */
  waitFor(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM (or `signal`), then wait for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnProc(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): Proc {
  const proc = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const l of [...listeners]) l();
  };
  proc.stdout!.on('data', onData);
  proc.stderr!.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
  let gone = false;
  void exited.then(() => {
    gone = true;
    for (const l of [...listeners]) l();
  });
  return {
    proc,
    output: () => out,
    exited,
    waitFor(re, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = out.match(re);
          if (m) return finish(() => resolve(m));
          if (gone) finish(() => reject(new Error(`${cmd} exited before printing ${re}:\n${out.slice(-3000)}`)));
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`${cmd} did not print ${re} within ${timeoutMs} ms:\n${out.slice(-3000)}`))), timeoutMs);
        const finish = (f: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          f();
        };
        listeners.add(check);
        check();
      });
    },
    async stop(signal = 'SIGTERM') {
      if (!gone) proc.kill(signal);
      return exited;
    },
  };
}

/** The CLI (the test run's bundle of the sources, cli-bundle.ts), as bin/gamba-analytics.js runs the compiled one. */
export function spawnCli(args: string[], env: Record<string, string>): Proc {
  return spawnProc(process.execPath, [...bundledEntry('run-cli'), ...args], {
    ...process.env,
    SOLANA_RPC_URL: '',
    LOG_LEVEL: 'warn',
    ...env,
  });
}

/** `serve --no-indexer` on an ephemeral port; resolves with its base URL once it listens. */
export async function startApi(env: Record<string, string>, extraArgs: string[] = []): Promise<Proc & { url: string }> {
  const p = spawnCli(['serve', '--no-indexer', '--port', '0', ...extraArgs], env);
  const m = await p.waitFor(/API listening on (http:\/\/\S+) /, 60_000);
  return Object.assign(p, { url: m[1]! });
}

/** A private redis-server on `port` (no persistence) that the test may kill and restart. */
export async function startRedisServer(port: number): Promise<Proc> {
  const p = spawnProc('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']);
  await p.waitFor(/Ready to accept connections/, 10_000);
  return p;
}

/**
 * A TCP proxy 127.0.0.1:port → target. `cut()` closes the listener and every open connection
 * (clients then see ECONNREFUSED/ECONNRESET, as when the server is unreachable); `restore()`
 * listens again on the same port.
 */
export interface TcpProxy {
  port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;
  const listen = async () => {
    server = net.createServer((client) => {
      const upstream = net.connect(targetPort, targetHost);
      sockets.add(client);
      sockets.add(upstream);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((r) => server!.listen(port, '127.0.0.1', r));
    port = (server.address() as net.AddressInfo).port;
  };
  const cut = async () => {
    const s = server;
    server = undefined;
    for (const sock of sockets) sock.destroy();
    sockets.clear();
    if (s) await new Promise<void>((r) => s.close(() => r()));
  };
  await listen();
  return {
    get port() {
      return port;
    },
    cut,
    restore: listen,
    close: cut,
  };
}
