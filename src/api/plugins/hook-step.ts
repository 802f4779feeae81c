import type { FastifyError } from 'fastify';

/**
 * Runs one step of a callback-style Fastify hook (docs/benchmarks.md hot path): a step that finishes
 * synchronously calls `done` at once — no promise, no microtask — and a step that has to wait
 * (a store query, a Redis round trip) returns a promise and `done` follows it. A thrown error
 * or a rejection goes to `done(err)`, i.e. to the error handler, as with an async hook.
 * `step` is built once per hook and takes its argument: no closure per request.
 */
export function runStep<A>(done: (err?: FastifyError) => void, step: (arg: A) => void | Promise<void>, arg: A): void {
  let pending: void | Promise<void>;
  try {
    pending = step(arg);
  } catch (err) {
    done(err as FastifyError);
    return;
  }
  if (pending === undefined) done();
  else pending.then(() => done(), (err: unknown) => done(err as FastifyError));
}
