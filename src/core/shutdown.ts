/**
 * Shutdown registry (docs/architecture.md convention 2): every pool, server and timer registers its close step;
 * `close()` runs them in reverse registration order (last opened, first closed), once.
 */
export interface Shutdown {
  register(name: string, fn: () => Promise<void> | void): void;
  close(): Promise<void>;
  readonly closing: boolean;
}

/** A shutdown registry; a failing step is reported to `onError` (name, error) and the next steps still run. */
export function createShutdown(onError?: (name: string, err: unknown) => void): Shutdown {
  const steps: { name: string; fn: () => Promise<void> | void }[] = [];
  let closing: Promise<void> | undefined;
  return {
    register(name, fn) {
      steps.push({ name, fn });
    },
    get closing() {
      return closing !== undefined;
    },
    close() {
      closing ??= (async () => {
        for (const step of steps.reverse()) {
          try {
            await step.fn();
          } catch (err) {
            onError?.(step.name, err);
          }
        }
      })();
      return closing;
    },
  };
}
