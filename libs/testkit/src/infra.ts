// One call that gives a test run everything it needs, isolated from other runs: its own
// database, its own NATS subject/stream prefix, and the S3 bucket settings.
import { deleteStreamsWithPrefix, resolveNats } from "./nats.ts";
import { randomId } from "./net.ts";
import { createTestDatabase, resolvePostgres } from "./postgres.ts";
import type { DatabaseTemplate, ResolveOptions } from "./postgres.ts";
import { resolveS3 } from "./s3.ts";
import type { S3Settings } from "./s3.ts";

export interface TestInfra {
  /** URL of a fresh database created for this run. */
  databaseUrl: string;
  databaseName: string;
  natsUrl: string;
  /** Unique `t_<random>_`: prefix every subject and stream name with it. */
  natsPrefix: string;
  s3: S3Settings;
  /** DATABASE_URL, NATS_URL and S3_* as a service's config reads them, and METRICS_PORT=0 (any free port). */
  env: Record<string, string>;
  /** Drops the database, deletes the run's streams, releases private servers. */
  stop(): Promise<void>;
}

/** `template`: the run's database is a copy of it (e.g. every service migrated) instead of empty. */
export async function createTestInfra(options: ResolveOptions & { template?: DatabaseTemplate } = {}): Promise<TestInfra> {
  const [pg, nats, s3] = await Promise.all([resolvePostgres(options), resolveNats(options), resolveS3(options)]);
  let db;
  try {
    db = await createTestDatabase(pg.adminUrl, options.template);
  } catch (error) {
    await Promise.allSettled([pg.stop(), nats.stop(), s3.stop()]);
    throw error;
  }
  const natsPrefix = `t_${randomId(8)}_`;
  const { endpoint, region, bucket, accessKeyId, secretAccessKey } = s3;
  const s3Settings: S3Settings = { endpoint, region, bucket, accessKeyId, secretAccessKey, forcePathStyle: true };
  let stopped = false;
  return {
    databaseUrl: db.url,
    databaseName: db.name,
    natsUrl: nats.url,
    natsPrefix,
    s3: s3Settings,
    env: {
      DATABASE_URL: db.url,
      NATS_URL: nats.url,
      S3_ENDPOINT: endpoint,
      S3_REGION: region,
      S3_BUCKET: bucket,
      S3_ACCESS_KEY_ID: accessKeyId,
      S3_SECRET_ACCESS_KEY: secretAccessKey,
      S3_FORCE_PATH_STYLE: "true",
      // Processes of concurrent runs must not compete for the default metrics port.
      METRICS_PORT: "0",
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      const cleanups = await Promise.allSettled([db.drop(), deleteStreamsWithPrefix(nats.url, natsPrefix)]);
      const released = await Promise.allSettled([pg.stop(), nats.stop(), s3.stop()]);
      const failure = [...cleanups, ...released].find((r) => r.status === "rejected");
      if (failure) throw failure.reason;
    },
  };
}
