/**
 * What Linux's /proc says about a process, for tests of the process topology
 * (docs/architecture.md "Process topology"): its children and their command lines, CPU time,
 * bytes written to storage, and the TCP connections its file descriptors hold.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface ProcInfo {
  pid: number;
  /** argv of the process (from /proc/PID/cmdline). */
  args: string[];
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The parent pid of `pid` (field 4 of /proc/PID/stat); undefined when it is gone. */
export function parentOf(pid: number): number | undefined {
  const stat = read(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  // The command name (field 2) may hold spaces: the fields after it follow the last ')'.
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** Live direct children of `pid`. */
export function childrenOf(pid: number): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const child = Number(name);
    if (parentOf(child) !== pid) continue;
    const cmdline = read(`/proc/${child}/cmdline`);
    if (cmdline === undefined) continue;
    out.push({ pid: child, args: cmdline.split('\0').filter(Boolean) });
  }
  return out;
}

/** The child of `pid` running the CLI subcommand `command` (`index`, `simulate`), if any. */
export function cliChild(pid: number, command: string): ProcInfo | undefined {
  return childrenOf(pid).find((c) => c.args.includes(command) && c.args.includes('--supervised'));
}

/** User + system CPU time of `pid` so far, in clock ticks (fields 14 and 15 of /proc/PID/stat). */
export function cpuTicks(pid: number): number {
  const stat = read(`/proc/${pid}/stat`) ?? '';
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** Bytes `pid` caused to be written to storage (`write_bytes` of /proc/PID/io). */
export function storageWriteBytes(pid: number): number {
  const m = /^write_bytes: (\d+)$/m.exec(read(`/proc/${pid}/io`) ?? '');
  return m ? Number(m[1]) : Number.NaN;
}

export interface TcpSocket {
  localPort: number;
  remotePort: number;
  /** Kernel state: 'LISTEN', 'ESTABLISHED' or the hex code of another. */
  state: string;
}

/** TCP sockets (IPv4 and IPv6) held by the file descriptors of `pid`. */
export function tcpSocketsOf(pid: number): TcpSocket[] {
  const inodes = new Set<string>();
  let fds: string[] = [];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return [];
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      /* closed meanwhile */
    }
  }
  const out: TcpSocket[] = [];
  for (const table of [`/proc/${pid}/net/tcp`, `/proc/${pid}/net/tcp6`]) {
    for (const line of (read(table) ?? '').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || !inodes.has(f[9]!)) continue;
      const port = (addr: string) => parseInt(addr.slice(addr.lastIndexOf(':') + 1), 16);
      const st = f[3]!;
      out.push({ localPort: port(f[1]!), remotePort: port(f[2]!), state: st === '0A' ? 'LISTEN' : st === '01' ? 'ESTABLISHED' : st });
    }
  }
  return out;
}
