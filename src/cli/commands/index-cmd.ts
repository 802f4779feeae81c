import type { Command } from 'commander';

/** Placeholder until its issue lands. */
export function registerIndex(program: Command): void {
  void program;
}
