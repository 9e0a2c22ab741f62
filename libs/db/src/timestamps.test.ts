import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestInfra, type TestInfra } from "@support/testkit";
import { parseTimestamptz } from "./timestamps.ts";

// pg's own parser (postgres-date), the reference: the fast path must return the same value.
const standard = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, "text") as (text: string) => Date | number | null;
const valueOf = (parsed: Date | number | null) => (parsed instanceof Date ? parsed.getTime() : parsed);

describe("timestamptz parsing", () => {
  it("returns what pg's parser returns, for every form Postgres sends", () => {
    expect(standard).not.toBe(parseTimestamptz); // the reference is pg's, not this module's
    const pad = (n: number, width = 2) => String(n).padStart(width, "0");
    const offsets = ["+00", "-03", "+05:30", "-09:30", "+05:45", "+14", "-12", "+00:53:28", "-00:25:21"];
    let random = 42;
    const next = (n: number) => {
      random = (random * 1103515245 + 12345) % 2147483648;
      return random % n;
    };
    const samples: string[] = [];
    for (let k = 0; k < 5000; k++) {
      const year = [1, 99, 100, 1969, 1970, 2026, 9999][k % 7]! + (k % 7 === 3 ? next(100) : 0);
      const fraction = ["", ".1", ".12", ".123", ".1234", ".12345", ".123456", ".000001", ".999999", ".29", ".57"][next(11)]!;
      samples.push(`${pad(year, 4)}-${pad(1 + next(12))}-${pad(1 + next(28))} ${pad(next(24))}:${pad(next(60))}:${pad(next(60))}${fraction}${offsets[next(offsets.length)]}`);
    }
    samples.push("2026-11-24 05:45:02+00", "0044-03-15 12:00:00+00 BC", "infinity", "-infinity", "12026-01-01 00:00:00+00", "2026-11-24 05:45:02.5+00 BC");
    for (const text of samples) expect(valueOf(parseTimestamptz(text)), text).toBe(valueOf(standard(text)));
  });

  describe("against Postgres", () => {
    let infra: TestInfra;
    let client: pg.Client;

    beforeAll(async () => {
      infra = await createTestInfra();
      client = new pg.Client({ connectionString: infra.databaseUrl, types: { getTypeParser: (oid: number) => (oid === 1184 ? parseTimestamptz : pg.types.getTypeParser(oid)) } as never });
      await client.connect();
    });

    afterAll(async () => {
      await client?.end();
      await infra?.stop();
    });

    it("reads the instant Postgres holds, whatever the session's time zone", async () => {
      for (const zone of ["UTC", "Asia/Kolkata", "America/St_Johns", "Pacific/Chatham", "Europe/Amsterdam"]) {
        await client.query(`set timezone = '${zone}'`);
        const { rows } = await client.query<{ at: Date; ms: string }>(
          `select t as at, floor(extract(epoch from t) * 1000)::bigint::text as ms
           from (values (timestamptz '2026-11-24 05:45:02.123456+00'), (timestamptz '1900-01-01 00:00:00+00'),
                        (timestamptz '2026-03-29 01:30:00.5+00'), (now())) as v(t)`,
        );
        for (const row of rows) expect(row.at.getTime(), zone).toBe(Number(row.ms));
      }
    });
  });
});
