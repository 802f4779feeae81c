// Worker thread of the dataset builder: runs the simulator's deterministic event generation
// (its ground-truth iterator) and posts batches of events to the writer on the main thread,
// so generation and store writes use both cores. At most `window` batches are in flight.
import { parentPort, workerData } from 'node:worker_threads';
import { startSimulator, type GroundTruthEvent } from '../src/simulator/index.js';

interface Data {
  seed: number;
  days: number;
  playsPerDay: number;
  startTimeMs: number;
  batchSize: number;
  window: number;
}

const d = workerData as Data;
const port = parentPort!;
let credits = d.window;
let wake: (() => void) | undefined;
port.on('message', (m: string) => {
  if (m === 'ack') {
    credits++;
    wake?.();
  }
});

const sim = await startSimulator({ seed: d.seed, days: d.days, playsPerDay: d.playsPerDay, liveRate: 0, startTimeMs: d.startTimeMs });
let batch: GroundTruthEvent[] = [];
const send = async () => {
  while (credits <= 0) await new Promise<void>((r) => (wake = r));
  credits--;
  port.postMessage({ kind: 'batch', events: batch });
  batch = [];
};
for await (const e of sim.groundTruth({ maxSlot: sim.startSlot - 1 })) {
  batch.push(e);
  if (batch.length >= d.batchSize) await send();
}
if (batch.length) await send();
await sim.stop();
port.postMessage({ kind: 'done' });
port.close();
