// The machine's ceiling: a bare Fastify JSON hello-world in its own process (docs/benchmarks.md).
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
await app.listen({ host: '127.0.0.1', port: 0 });
const addr = app.server.address() as { port: number };
process.stdout.write(`listening http://127.0.0.1:${addr.port}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
