import type { Command } from 'commander';

/** Placeholder until its issue lands. */
export function registerServe(program: Command): void {
  void program;
}
