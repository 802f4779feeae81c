import type { Command } from 'commander';

/** Placeholder until its issue lands. */
export function registerKeys(program: Command): void {
  void program;
}
