import type { Command } from 'commander';

/** Placeholder until its issue lands. */
export function registerSimulate(program: Command): void {
  void program;
}
