// ensureStream against the real NATS: creates a stream, leaves it alone when it matches, and
// updates it in place when a setting changes; JetStream replicas come from the settings, and a
// single server's refusal of replicas > 1 is reported with the variable to change.
import { jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestInfra, type TestInfra } from "@support/testkit";
import { connectBus, ensureStream, streamNameFor, type NatsConnection } from "./index.ts";

let infra: TestInfra;
let nc: NatsConnection;
let jsm: JetStreamManager;
let prefix: string;
const created: string[] = [];

function streamFor(name: string): string {
  const stream = streamNameFor(prefix, name);
  created.push(stream);
  return stream;
}

describe("ensureStream", () => {
  beforeAll(async () => {
    infra = await createTestInfra();
    prefix = infra.natsPrefix;
    nc = await connectBus(infra.natsUrl, "stream-test");
    jsm = await jetstreamManager(nc);
  });

  afterAll(async () => {
    for (const stream of created) await jsm.streams.delete(stream).catch(() => undefined);
    await nc.drain();
    await infra.stop();
  });

  it("creates the stream once, then finds it unchanged", async () => {
    const stream = streamFor("settle");
    const settings = { name: stream, subjects: [`${prefix}settle.>`] };
    expect(await ensureStream(nc, settings)).toBe("created");
    expect(await ensureStream(nc, settings)).toBe("unchanged");
    const info = await jsm.streams.info(stream);
    expect(info.config.num_replicas).toBe(1);
    expect(info.config.max_age).toBe(7 * 24 * 3600 * 1e9);
  });

  it("updates max_age, the duplicate window and the subjects of an existing stream in place, keeping its messages", async () => {
    const stream = streamFor("change");
    await ensureStream(nc, { name: stream, subjects: [`${prefix}change.>`], maxAgeMs: 3_600_000 });
    await nc.request(`${prefix}change.one`, "kept");
    expect(await ensureStream(nc, { name: stream, subjects: [`${prefix}change.>`], maxAgeMs: 7_200_000, duplicateWindowMs: 60_000 })).toBe("updated");
    let info = await jsm.streams.info(stream);
    expect(info.config.max_age).toBe(7_200_000 * 1e6);
    expect(info.config.duplicate_window).toBe(60_000 * 1e6);
    expect(info.state.messages).toBe(1);

    const subjects = [`${prefix}change.>`, `${prefix}changed.>`];
    expect(await ensureStream(nc, { name: stream, subjects, maxAgeMs: 7_200_000, duplicateWindowMs: 60_000 })).toBe("updated");
    info = await jsm.streams.info(stream);
    expect([...info.config.subjects].sort()).toEqual(subjects);
    // The order of subjects is no change.
    expect(await ensureStream(nc, { name: stream, subjects: [...subjects].reverse(), maxAgeMs: 7_200_000, duplicateWindowMs: 60_000 })).toBe("unchanged");
  });

  it("lets several pods start at once: none fails, and none changes what another created", async () => {
    const stream = streamFor("race");
    const settings = { name: stream, subjects: [`${prefix}race.>`] };
    const outcomes = await Promise.all([1, 2, 3, 4].map(() => ensureStream(nc, settings)));
    // NATS answers an identical create with success, so more than one may report "created".
    expect(outcomes).toContain("created");
    expect(outcomes.every((outcome) => outcome === "created" || outcome === "unchanged")).toBe(true);
    expect(await ensureStream(nc, settings)).toBe("unchanged");
  });

  it("asks NATS for the configured replicas: a single server refuses 3, and the error names NATS_STREAM_REPLICAS", async () => {
    const stream = streamFor("replicated");
    const settings = { name: stream, subjects: [`${prefix}replicated.>`], replicas: 3 };
    if (nc.info?.cluster) {
      // A clustered NATS (not the local one): the stream gets its three copies.
      expect(await ensureStream(nc, settings)).toBe("created");
      expect((await jsm.streams.info(stream)).config.num_replicas).toBe(3);
      return;
    }
    const failure = await ensureStream(nc, settings).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure?.message).toMatch(/3 replicas need a JetStream cluster/);
    expect(failure?.message).toContain("NATS_STREAM_REPLICAS=3");
    expect(failure?.message).toMatch(/non-clustered/); // NATS' own words are kept
    await expect(jsm.streams.info(stream)).rejects.toThrow(/not found/);
  });

  it("refuses a replica count JetStream cannot have before asking NATS", async () => {
    for (const replicas of [0, 6, 1.5]) {
      await expect(ensureStream(nc, { name: streamFor(`bad${String(replicas).replace(".", "")}`), subjects: [`${prefix}bad.>`], replicas })).rejects.toThrow(
        /replicas must be an integer from 1 to 5/,
      );
    }
  });
});
