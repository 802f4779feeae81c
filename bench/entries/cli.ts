// Runs the real CLI (`gamba-analytics …`) from source, as the benchmark's API server child.
import { main } from '../../src/cli/main.js';

main(process.argv).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
