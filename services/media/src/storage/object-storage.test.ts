import { describe, expect, it } from "vitest";
import { loadMediaConfig } from "../config.ts";
import { createObjectStorage } from "./object-storage.ts";

const upload = { key: "c/g/id", contentType: "image/png", contentLength: 42, contentDisposition: `inline; filename="a.png"`, expiresInSeconds: 900 };

describe("signed URLs", () => {
  it("name S3_PUBLIC_ENDPOINT when set, while the service itself talks to S3_ENDPOINT", async () => {
    const storage = createObjectStorage(
      loadMediaConfig({
        S3_BUCKET: "attachments",
        S3_ENDPOINT: "http://minio.storage.svc:9000",
        S3_PUBLIC_ENDPOINT: "https://files.example.com",
        S3_FORCE_PATH_STYLE: "true",
        S3_ACCESS_KEY_ID: "key",
        S3_SECRET_ACCESS_KEY: "secret",
      }),
    );
    const signed = await storage.presignUpload(upload);
    expect(new URL(signed.url).origin).toBe("https://files.example.com");
    expect(new URL(signed.url).pathname).toBe("/attachments/c/g/id");
    expect(signed.headers).toEqual({ "Content-Type": "image/png", "Content-Disposition": `inline; filename="a.png"` });
    expect(new URL(await storage.presignDownload("c/g/id", 300)).origin).toBe("https://files.example.com");
    storage.destroy();
  });

  it("use virtual-hosted AWS S3 addresses by default, and carry no checksum of an empty body", async () => {
    const storage = createObjectStorage(
      loadMediaConfig({ S3_BUCKET: "attachments", S3_REGION: "eu-west-1", S3_ACCESS_KEY_ID: "key", S3_SECRET_ACCESS_KEY: "secret" }),
    );
    const url = new URL((await storage.presignUpload(upload)).url);
    expect(url.host).toBe("attachments.s3.eu-west-1.amazonaws.com");
    expect(url.searchParams.get("X-Amz-SignedHeaders")).toBe("content-disposition;content-length;content-type;host");
    expect([...url.searchParams.keys()].filter((k) => /checksum/i.test(k))).toEqual([]);
    storage.destroy();
  });
});
