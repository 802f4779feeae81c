import type { Store } from '../../src/store/index.js';

type Queries = Store['queries'];

/**
 * The real store with one read query held at a gate: calls of `method` wait until `open()` (then
 * run the real query). Lets a test keep requests "in flight" for as long as it needs without any
 * timing assumption. `entered` counts calls that reached the gate.
 */
export function gateQuery<K extends keyof Queries>(store: Store, method: K) {
  let release!: () => void;
  let opened = new Promise<void>((r) => (release = r));
  let entered = 0;
  const waiters: (() => void)[] = [];
  const real = store.queries[method] as (...args: unknown[]) => Promise<unknown>;
  const queries = Object.create(store.queries) as Queries;
  (queries as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
    entered++;
    for (const w of waiters.splice(0)) w();
    await opened;
    return real.apply(store.queries, args);
  };
  const gated: Store = { ...store, queries };
  return {
    store: gated,
    get entered() {
      return entered;
    },
    /** Resolves once at least `n` calls are waiting at the gate. */
    async waitEntered(n: number): Promise<void> {
      while (entered < n) await new Promise<void>((r) => waiters.push(r));
    },
    open() {
      release();
    },
    /** Closes the gate again for later calls. */
    close() {
      opened = new Promise<void>((r) => (release = r));
    },
  };
}
