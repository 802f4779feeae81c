// The chain simulator in its own process for the ingest and simulator benchmarks.
// argv[2]: JSON SimulatorOptions. Prints `rpc <url>` once listening, `ready <ms>` after the history pass.
import { startSimulator } from '../../src/simulator/index.js';

const opts = JSON.parse(process.argv[2] ?? '{}') as Parameters<typeof startSimulator>[0];
const t0 = performance.now();
const sim = await startSimulator({ ...opts, port: 0 });
process.stdout.write(`rpc ${JSON.stringify({ rpcUrl: sim.rpcUrl, hermesUrl: sim.hermesUrl, jupiterUrl: sim.jupiterUrl, mints: sim.mints })}\n`);
process.once('SIGTERM', () => void sim.stop().then(() => process.exit(0)));
await sim.ready();
process.stdout.write(`ready ${Math.round(performance.now() - t0)}\n`);
