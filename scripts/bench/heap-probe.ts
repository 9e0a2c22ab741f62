// Preloaded (`--import`) into every service process of a soak run: answers the bench's IPC
// message `soak:memory` with the process's own heap figures, optionally right after a full
// garbage collection (the live heap). Does nothing in a process started without an IPC channel.
import v8 from "node:v8";
import vm from "node:vm";

interface Probe {
  type: "soak:memory";
  id: number;
  gc?: boolean;
}

let collect: (() => void) | undefined;

if (process.send) {
  process.on("message", (message: Probe) => {
    if (message?.type !== "soak:memory") return;
    if (message.gc) {
      if (!collect) {
        // Exposes gc() to a fresh context only, so the service's own code sees no global gc.
        v8.setFlagsFromString("--expose-gc");
        collect = vm.runInNewContext("gc") as () => void;
      }
      collect();
    }
    const usage = process.memoryUsage();
    const heap = v8.getHeapStatistics();
    process.send?.({
      type: "soak:memory",
      id: message.id,
      heapUsed: usage.heapUsed,
      heapTotal: usage.heapTotal,
      external: usage.external,
      arrayBuffers: usage.arrayBuffers,
      heapLimit: heap.heap_size_limit,
    });
  });
  // The listener must not keep a stopping service alive.
  process.channel?.unref();
}
