// The flood suite's probes in a worker thread (flood.ts, probesApart): each probe a closed loop
// at a steady pace, all at once; the results go back to the suite as one message.
import { parentPort, workerData } from "node:worker_threads";
import { closedLoop } from "./closed-loop.ts";
import type { ProbeSettings } from "./flood.ts";

const { origin, connections, seconds, pacingMs, probes } = workerData as ProbeSettings;
const results = await Promise.all(probes.map((probe) => closedLoop(probe.name, origin, connections, seconds, () => probe.request, false, pacingMs)));
parentPort!.postMessage(results);
