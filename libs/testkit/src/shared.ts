// Reference-counted, per-process sharing of an expensive resource (a private server), plus a
// synchronous last-resort cleanup when the process exits without releasing it.

export interface Stoppable {
  stop(): Promise<void>;
}

export interface Lease<T> {
  value: T;
  release(): Promise<void>;
}

export interface Shared<T extends Stoppable> {
  acquire(): Promise<Lease<T>>;
}

/** Starts the resource on first acquire, stops it when the last lease is released. */
export function createShared<T extends Stoppable>(start: () => Promise<T>): Shared<T> {
  let current: Promise<T> | undefined;
  let refs = 0;
  return {
    async acquire() {
      refs += 1;
      const pending = (current ??= start());
      let value: T;
      try {
        value = await pending;
      } catch (error) {
        refs -= 1;
        if (current === pending) current = undefined;
        throw error;
      }
      let released = false;
      return {
        value,
        release: async () => {
          if (released) return;
          released = true;
          refs -= 1;
          if (refs === 0 && current === pending) {
            current = undefined;
            await value.stop();
          }
        },
      };
    },
  };
}

const exitHooks = new Set<() => void>();
let exitHookInstalled = false;

/** Registers a synchronous cleanup run on process exit; returns a function that unregisters it. */
export function onProcessExit(hook: () => void): () => void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once("exit", () => {
      for (const h of exitHooks) {
        try {
          h();
        } catch {
          // best effort: the process is going away
        }
      }
    });
  }
  exitHooks.add(hook);
  return () => exitHooks.delete(hook);
}
