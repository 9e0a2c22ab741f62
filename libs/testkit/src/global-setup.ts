// vitest globalSetup: resolve Postgres, NATS and S3 once per vitest run (in the main process)
// and hand them to every test file through DATABASE_URL / NATS_URL / S3_* so that
// createTestInfra() in the workers finds them as "env" instead of starting its own. It also
// makes the run's scratch folder (TEST_RUN_DIR: builds the files of a run share, see bundle.ts),
// removed when the run ends.
// Use it with `test: { globalSetup: [testInfraGlobalSetup] }` (see ./vitest.ts).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveNats } from "./nats.ts";
import { resolvePostgres } from "./postgres.ts";
import { resolveS3 } from "./s3.ts";

export default async function setup(): Promise<() => Promise<void>> {
  const [pg, nats, s3] = await Promise.all([resolvePostgres(), resolveNats(), resolveS3()]);
  const runDir = await mkdtemp(join(tmpdir(), "test-run-"));
  process.env.TEST_RUN_DIR = runDir;
  process.env.DATABASE_URL = pg.adminUrl;
  process.env.NATS_URL = nats.url;
  process.env.S3_ENDPOINT = s3.endpoint;
  process.env.S3_REGION = s3.region;
  process.env.S3_BUCKET = s3.bucket;
  process.env.S3_ACCESS_KEY_ID = s3.accessKeyId;
  process.env.S3_SECRET_ACCESS_KEY = s3.secretAccessKey;
  process.env.S3_FORCE_PATH_STYLE = "true";
  return async () => {
    await Promise.allSettled([pg.stop(), nats.stop(), s3.stop(), rm(runDir, { recursive: true, force: true })]);
  };
}
