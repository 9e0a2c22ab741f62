// The media service's configuration, from environment variables only. Storage is any
// S3-compatible endpoint (AWS S3, MinIO, Ceph RGW); see docs/attachments.md.
import { bool, ConfigError, loadConfig, num, str } from "@support/config";
import { portSpec, rpcClientConfigSpecs, serviceConfigSpecs } from "@support/runtime";
import { idempotencyConfigSpecs } from "@support/idempotency";

/** SigV4 pre-signed URLs are valid for at most 7 days. */
const MAX_PRESIGN_SECONDS = 604_800;
/** A download URL is valid for at most 5 minutes. */
export const MAX_DOWNLOAD_URL_SECONDS = 300;

export const configSpecs = {
  ...serviceConfigSpecs,
  ...idempotencyConfigSpecs,
  ...rpcClientConfigSpecs,
  PORT: portSpec(50053),
  CONTENT_URL: str({ default: "http://127.0.0.1:50051", desc: "Where the content service answers (games of a company)" }),
  RPC_TIMEOUT_MS: num({ default: 10_000, desc: "Deadline of each call to another service" }),
  S3_ENDPOINT: str({ default: "", desc: "S3 API endpoint the service talks to; empty: AWS S3 of S3_REGION" }),
  S3_PUBLIC_ENDPOINT: str({
    default: "",
    desc: "Endpoint put in the signed URLs handed to clients, when they reach the storage under another address than S3_ENDPOINT",
  }),
  S3_REGION: str({ default: "us-east-1", desc: "Region of the bucket (signing region)" }),
  S3_BUCKET: str({ desc: "Bucket holding the attachments" }),
  S3_ACCESS_KEY_ID: str({ default: "", desc: "Access key; empty: the SDK's default credential chain (IAM role, ...)" }),
  S3_SECRET_ACCESS_KEY: str({ default: "", desc: "Secret of S3_ACCESS_KEY_ID" }),
  S3_FORCE_PATH_STYLE: bool({ default: false, desc: "Path-style addressing (MinIO, Ceph, s3rver); false: virtual-hosted" }),
  UPLOAD_URL_EXPIRES_SECONDS: num({ default: 900, desc: "Validity of a pre-signed upload URL (uploadExpiresInSeconds)" }),
  DOWNLOAD_URL_EXPIRES_SECONDS: num({ default: 300, desc: "Validity of the signed download URL behind GET /attachments/{id}; at most 300" }),
  UNUSED_ATTACHMENT_TTL_HOURS: num({ default: 24, desc: "Uploads never used by a ticket are deleted this long after their creation" }),
  ATTACHMENT_SWEEP_INTERVAL_MS: num({ default: 60_000, desc: "Period of the sweep deleting unused uploads (0 disables it)" }),
};

function loadRaw(env: Record<string, string | undefined>) {
  return loadConfig(configSpecs, env);
}

export type MediaConfig = ReturnType<typeof loadRaw>;

function checkRanges(config: MediaConfig): string[] {
  const problems: string[] = [];
  const integerIn = (name: keyof MediaConfig, min: number, max: number) => {
    const value = config[name] as number;
    if (!Number.isInteger(value) || value < min || value > max) problems.push(`${name}: must be an integer from ${min} to ${max}`);
  };
  integerIn("UPLOAD_URL_EXPIRES_SECONDS", 1, MAX_PRESIGN_SECONDS);
  integerIn("DOWNLOAD_URL_EXPIRES_SECONDS", 1, MAX_DOWNLOAD_URL_SECONDS);
  if (!(config.UNUSED_ATTACHMENT_TTL_HOURS > 0)) problems.push("UNUSED_ATTACHMENT_TTL_HOURS: must be positive");
  // An upload may complete until its URL expires: sweeping it before that would leave an
  // object behind that no row names.
  else if (config.UNUSED_ATTACHMENT_TTL_HOURS * 3600 < config.UPLOAD_URL_EXPIRES_SECONDS) {
    problems.push("UNUSED_ATTACHMENT_TTL_HOURS: must not be shorter than UPLOAD_URL_EXPIRES_SECONDS");
  }
  if (!(config.ATTACHMENT_SWEEP_INTERVAL_MS >= 0)) problems.push("ATTACHMENT_SWEEP_INTERVAL_MS: must be 0 or positive");
  if (config.S3_BUCKET.trim() === "") problems.push("S3_BUCKET: must not be empty");
  if ((config.S3_ACCESS_KEY_ID === "") !== (config.S3_SECRET_ACCESS_KEY === "")) {
    problems.push("S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY: give both or neither");
  }
  for (const name of ["S3_ENDPOINT", "S3_PUBLIC_ENDPOINT"] as const) {
    if (config[name] !== "" && !URL.canParse(config[name])) problems.push(`${name}: must be a URL`);
  }
  return problems;
}

export function loadMediaConfig(env: Record<string, string | undefined> = process.env): MediaConfig {
  const config = loadRaw(env);
  const problems = checkRanges(config);
  if (problems.length > 0) throw new ConfigError(`Invalid configuration: ${problems.join("; ")}`);
  return config;
}
