import type { Command } from 'commander';

/** Placeholder until its issue lands. */
export function registerRollups(program: Command): void {
  void program;
}
