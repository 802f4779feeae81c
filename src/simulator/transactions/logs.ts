import { LOG_TRUNCATED } from '../../protocol/index.js';

/**
 * Writes `meta.logMessages` the way the Solana runtime does (program-runtime stable_log.rs):
 * "Program <id> invoke [depth]", program output as "Program log: …" / "Program data: …",
 * "Program <id> consumed X of Y compute units" (Y = the transaction's compute meter when the
 * program was invoked) and "Program <id> success" / "Program <id> failed: …". Builtins
 * (System, ComputeBudget) log no "consumed" line.
 */
export class LogBook {
  readonly lines: string[] = [];
  /** The transaction's compute meter (units left). */
  meter: number;
  /** Set when a "Program data:" line must be replaced by the runtime's truncation marker. */
  private truncated = false;

  constructor(
    budget: number,
    private readonly truncateAtData: boolean,
  ) {
    this.meter = budget;
  }

  private push(line: string): void {
    if (this.truncated) return;
    this.lines.push(line);
  }

  /** A builtin program (no consumed line); ComputeBudget/System cost 150 CU each. */
  builtin(program: string, depth: number): void {
    this.push(`Program ${program} invoke [${depth}]`);
    this.meter -= 150;
    this.push(`Program ${program} success`);
  }

  /**
   * A BPF program invocation: `own` CU of its own work (half before, half after the body), the
   * body's nested invocations, then the consumed line and the outcome. Returns false when it failed.
   */
  invoke(program: string, depth: number, own: number, body?: () => boolean | void, failure?: string): boolean {
    const start = this.meter;
    this.push(`Program ${program} invoke [${depth}]`);
    const half = Math.floor(own / 2);
    this.meter -= half;
    const bodyOk = body ? body() !== false : true;
    this.meter -= own - half;
    const consumed = start - this.meter;
    this.push(`Program ${program} consumed ${consumed} of ${start} compute units`);
    if (!bodyOk || failure) {
      this.push(`Program ${program} failed: ${failure ?? 'custom program error: 0x1'}`);
      return false;
    }
    this.push(`Program ${program} success`);
    return true;
  }

  log(message: string): void {
    this.push(`Program log: ${message}`);
  }

  /**
   * `sol_log_data` output of Anchor's `emit!`. Under the truncated-logs fault the runtime's
   * 10,000-byte budget is taken to run out here: one "Log truncated" line, nothing after it
   * (program-runtime log_collector.rs).
   */
  data(base64: string): void {
    if (this.truncateAtData && !this.truncated) {
      this.lines.push(LOG_TRUNCATED);
      this.truncated = true;
      return;
    }
    this.push(`Program data: ${base64}`);
  }
}
