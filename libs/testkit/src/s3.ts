// S3 for tests and the local stack: S3_ENDPOINT, else an in-process @20minutes/s3rver (which,
// unlike s3rver 3.x, checks SigV4 signatures) on a free port with the bucket created.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CreateBucketCommand, HeadBucketCommand, PutBucketCorsCommand, S3Client } from "@aws-sdk/client-s3";
import type { InfraSource, ResolveOptions } from "./postgres.ts";
import { createShared, onProcessExit } from "./shared.ts";

export interface S3Settings {
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: true;
}

export interface ResolvedS3 extends S3Settings {
  source: InfraSource | "in-process";
  stop(): Promise<void>;
}

/** s3rver's built-in account: the only credentials it accepts. */
export const S3RVER_CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" } as const;
export const DEFAULT_TEST_BUCKET = "support-test";

interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
  httpServer?: Server;
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance;

const require = createRequire(import.meta.url);

export interface S3rverOptions {
  /** Where objects are stored. */
  directory: string;
  /** Port on 127.0.0.1 (default 0: any free port). */
  port?: number;
  bucket: string;
  /** Remove `directory` after stopping (temp instances). */
  removeOnStop?: boolean;
}

export interface S3rverServer extends S3Settings {
  port: number;
  stop(): Promise<void>;
}

/** Starts @20minutes/s3rver in this process and makes sure the bucket exists. */
export async function startS3rver(options: S3rverOptions): Promise<S3rverServer> {
  const S3rver = require("@20minutes/s3rver") as S3rverClass;
  mkdirSync(options.directory, { recursive: true });
  const server = new S3rver({
    address: "127.0.0.1",
    port: options.port ?? 0,
    silent: true,
    directory: options.directory,
    vhostBuckets: false,
  });
  const { port } = await server.run();
  const settings: S3Settings = {
    endpoint: `http://127.0.0.1:${port}`,
    region: "us-east-1",
    bucket: options.bucket,
    ...S3RVER_CREDENTIALS,
    forcePathStyle: true,
  };
  // Created through the S3 API (not s3rver's configureBuckets) so the signing path is exercised.
  await ensureBucket(settings);
  const removeDirectory = (): void => {
    if (options.removeOnStop) rmSync(options.directory, { recursive: true, force: true });
  };
  const unregister = onProcessExit(removeDirectory);
  let stopped = false;
  return {
    ...settings,
    port,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      unregister();
      // Keep-alive connections (the AWS SDK keeps them) would hold close() open.
      const closing = server.close();
      server.httpServer?.closeAllConnections();
      await closing;
      removeDirectory();
    },
  };
}

export function createS3Client(settings: S3Settings): S3Client {
  return new S3Client({
    endpoint: settings.endpoint,
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
  });
}

/** Creates the bucket unless it exists already. */
export async function ensureBucket(settings: S3Settings): Promise<void> {
  const client = createS3Client(settings);
  try {
    try {
      await client.send(new HeadBucketCommand({ Bucket: settings.bucket }));
    } catch {
      await client.send(new CreateBucketCommand({ Bucket: settings.bucket }));
    }
  } finally {
    client.destroy();
  }
}

/**
 * Lets pages at `origins` upload (pre-signed PUT) and download (pre-signed GET) straight from
 * the bucket: the web support page does both from the browser. Replaces the bucket's CORS rules.
 */
export async function allowBrowserOrigins(settings: S3Settings, origins: string[]): Promise<void> {
  const client = createS3Client(settings);
  try {
    await client.send(
      new PutBucketCorsCommand({
        Bucket: settings.bucket,
        CORSConfiguration: {
          CORSRules: [{ AllowedOrigins: origins, AllowedMethods: ["GET", "PUT"], AllowedHeaders: ["content-type", "content-disposition"], MaxAgeSeconds: 3600 }],
        },
      }),
    );
  } finally {
    client.destroy();
  }
}

const inProcessS3 = createShared(async () => {
  const directory = mkdtempSync(join(tmpdir(), "testkit-s3-"));
  return startS3rver({ directory, bucket: DEFAULT_TEST_BUCKET, removeOnStop: true });
});

export async function resolveS3(options: Pick<ResolveOptions, "env"> = {}): Promise<ResolvedS3> {
  const env = options.env ?? process.env;
  if (env.S3_ENDPOINT) {
    const settings: S3Settings = {
      endpoint: env.S3_ENDPOINT,
      region: env.S3_REGION ?? "us-east-1",
      bucket: env.S3_BUCKET ?? DEFAULT_TEST_BUCKET,
      accessKeyId: env.S3_ACCESS_KEY_ID ?? S3RVER_CREDENTIALS.accessKeyId,
      secretAccessKey: env.S3_SECRET_ACCESS_KEY ?? S3RVER_CREDENTIALS.secretAccessKey,
      forcePathStyle: true,
    };
    await ensureBucket(settings);
    return { ...settings, source: "env", stop: async () => {} };
  }
  const lease = await inProcessS3.acquire();
  const { endpoint, region, bucket, accessKeyId, secretAccessKey } = lease.value;
  return { endpoint, region, bucket, accessKeyId, secretAccessKey, forcePathStyle: true, source: "in-process", stop: lease.release };
}
