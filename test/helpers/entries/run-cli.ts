// Runs the CLI from source as bin/gamba-analytics.js runs the compiled one (`node --import tsx test/helpers/entries/run-cli.ts index …`).
import { main } from '../../../src/cli/main.js';

main(process.argv).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
