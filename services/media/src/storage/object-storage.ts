// The bucket behind the attachments, through the S3 API only, so that AWS S3, MinIO, Ceph RGW
// (or s3rver in tests) work unchanged. Two clients: one for the service's own calls
// (S3_ENDPOINT), one that only signs URLs for clients (S3_PUBLIC_ENDPOINT when the storage is
// reached from outside under another address; signing needs no network).
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client, type S3ClientConfig } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import type { MediaConfig } from "../config.ts";

export interface PresignedUpload {
  url: string;
  /** The headers the client must send exactly (the signed ones besides host and length). */
  headers: Record<string, string>;
}

export interface UploadToSign {
  key: string;
  contentType: string;
  contentLength: number;
  contentDisposition: string;
  expiresInSeconds: number;
}

export interface ObjectStorage {
  presignUpload(upload: UploadToSign): Promise<PresignedUpload>;
  presignDownload(key: string, expiresInSeconds: number): Promise<string>;
  /** Size and type of a stored object; undefined when there is none. */
  head(key: string): Promise<{ size: number; contentType: string | undefined } | undefined>;
  /** Writes an object the service itself received (not through a pre-signed upload). */
  put(object: { key: string; body: Uint8Array; contentType: string; contentDisposition: string }): Promise<void>;
  /** Deletes an object; deleting a missing one succeeds (S3 semantics). */
  delete(key: string): Promise<void>;
  destroy(): void;
}

type StorageConfig = Pick<
  MediaConfig,
  "S3_ENDPOINT" | "S3_PUBLIC_ENDPOINT" | "S3_REGION" | "S3_BUCKET" | "S3_ACCESS_KEY_ID" | "S3_SECRET_ACCESS_KEY" | "S3_FORCE_PATH_STYLE"
>;

function clientConfig(config: StorageConfig, endpoint: string): S3ClientConfig {
  return {
    region: config.S3_REGION,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
    ...(endpoint === "" ? {} : { endpoint }),
    ...(config.S3_ACCESS_KEY_ID === "" ? {} : { credentials: { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY } }),
    // Otherwise the SDK's presigned PutObject URLs carry a CRC32 of an empty body, which real S3
    // holds against the upload and so refuses any non-empty file; checksums are added only where
    // the API requires them.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  };
}

function isMissing(error: unknown): boolean {
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return status === 404 || (error as { name?: string }).name === "NotFound";
}

// Content-Length and host are always signed; these are signed on top and must be sent as given.
const SIGNED_UPLOAD_HEADERS = new Set(["content-type", "content-disposition"]);

export function createObjectStorage(config: StorageConfig): ObjectStorage {
  const bucket = config.S3_BUCKET;
  const client = new S3Client(clientConfig(config, config.S3_ENDPOINT));
  const signer = new S3Client(clientConfig(config, config.S3_PUBLIC_ENDPOINT || config.S3_ENDPOINT));
  return {
    async presignUpload(upload) {
      const command = new PutObjectCommand({
        Bucket: bucket,
        Key: upload.key,
        ContentType: upload.contentType,
        ContentLength: upload.contentLength,
        ContentDisposition: upload.contentDisposition,
      });
      const url = await getSignedUrl(signer, command, { expiresIn: upload.expiresInSeconds, signableHeaders: SIGNED_UPLOAD_HEADERS });
      return { url, headers: { "Content-Type": upload.contentType, "Content-Disposition": upload.contentDisposition } };
    },
    presignDownload(key, expiresInSeconds) {
      return getSignedUrl(signer, new GetObjectCommand({ Bucket: bucket, Key: key }), { expiresIn: expiresInSeconds });
    },
    async head(key) {
      try {
        const found = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
        return { size: found.ContentLength ?? 0, contentType: found.ContentType };
      } catch (error) {
        // A 403 is NOT treated as missing: without s3:ListBucket, S3 answers 403 for a missing
        // key, and a misconfigured role must fail loudly rather than look like "not uploaded".
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    async put(object) {
      await client.send(
        new PutObjectCommand({ Bucket: bucket, Key: object.key, Body: object.body, ContentType: object.contentType, ContentDisposition: object.contentDisposition, ContentLength: object.body.length }),
      );
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
    destroy() {
      client.destroy();
      signer.destroy();
    },
  };
}
