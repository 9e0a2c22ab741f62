import { describe, expect, it } from "vitest";
import { postgresAnswers } from "./postgres.ts";
import { natsJetStreamAnswers } from "./nats.ts";

describe("the vitest globalSetup", () => {
  it("hands the resolved servers to test workers through the environment", async () => {
    expect(process.env.DATABASE_URL).toMatch(/^postgres:\/\//);
    expect(process.env.NATS_URL).toMatch(/^nats:\/\//);
    expect(process.env.S3_ENDPOINT).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await postgresAnswers(process.env.DATABASE_URL ?? "")).toBe(true);
    expect(await natsJetStreamAnswers(process.env.NATS_URL ?? "")).toBe(true);
  });
});
