// Runs the CLI from source, exactly as bin/gamba-analytics.js runs the compiled one
// (tests spawn `node --import tsx test/keys/run-cli.ts …`, so they need no build step).
import { main } from '../../src/cli/main.js';

main(process.argv).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
