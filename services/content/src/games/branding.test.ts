import { describe, expect, it } from "vitest";
import { contrastRatio, inspectImage, normalizeHexColor, parseBranding, readableTextColor } from "./branding.ts";

const png = (width: number, height: number) => {
  const bytes = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(bytes);
  bytes.writeUInt32BE(13, 8);
  bytes.write("IHDR", 12, "latin1");
  bytes.writeUInt32BE(width, 16);
  bytes.writeUInt32BE(height, 20);
  return bytes;
};
const jpeg = (width: number, height: number) => {
  // SOI, an APP0 segment, then SOF0 with height and width.
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x06, 0x4a, 0x46, 0x49, 0x46]);
  const sof = Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, height >> 8, height & 0xff, width >> 8, width & 0xff, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof]);
};
const webp = (chunk: "VP8 " | "VP8L" | "VP8X", width: number, height: number) => {
  const bytes = Buffer.alloc(40);
  bytes.write("RIFF", 0, "latin1");
  bytes.write("WEBP", 8, "latin1");
  bytes.write(chunk, 12, "latin1");
  if (chunk === "VP8 ") {
    bytes.set([0x9d, 0x01, 0x2a], 23);
    bytes.writeUInt16LE(width, 26);
    bytes.writeUInt16LE(height, 28);
  } else if (chunk === "VP8L") {
    bytes[20] = 0x2f;
    bytes.writeUInt32LE(((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14), 21);
  } else {
    bytes.writeUIntLE(width - 1, 24, 3);
    bytes.writeUIntLE(height - 1, 27, 3);
  }
  return bytes;
};

describe("a game's branding", () => {
  it("reads the type and pixels of PNG, JPEG and WebP from their own bytes", () => {
    expect(inspectImage(png(120, 40))).toEqual({ contentType: "image/png", width: 120, height: 40 });
    expect(inspectImage(jpeg(300, 200))).toEqual({ contentType: "image/jpeg", width: 300, height: 200 });
    expect(inspectImage(webp("VP8 ", 64, 32))).toEqual({ contentType: "image/webp", width: 64, height: 32 });
    expect(inspectImage(webp("VP8L", 500, 20))).toEqual({ contentType: "image/webp", width: 500, height: 20 });
    expect(inspectImage(webp("VP8X", 1024, 16))).toEqual({ contentType: "image/webp", width: 1024, height: 16 });
  });

  it("refuses SVG, other files and images out of bounds at /logo", () => {
    expect(inspectImage(Buffer.from('<?xml version="1.0"?><svg/>'))).toContain("SVG");
    expect(inspectImage(Buffer.from("GIF89a......"))).toBe("must be a PNG, JPEG or WebP image");
    const issuesOf = (logo: Uint8Array) => {
      try {
        parseBranding({ colorScheme: "light", logo });
        return [];
      } catch (error) {
        return ((error as { details?: { issues?: { path: string }[] } }).details?.issues ?? []).map((issue) => issue.path);
      }
    };
    expect(issuesOf(png(8, 100))).toEqual(["/logo"]);
    expect(issuesOf(png(2048, 100))).toEqual(["/logo"]);
    expect(issuesOf(Buffer.concat([png(64, 64), Buffer.alloc(256 * 1024)]))).toEqual(["/logo"]);
    expect(issuesOf(png(64, 64))).toEqual([]);
  });

  it("takes #rgb and #rrggbb colours in lower case, and puts black or white text on them, whichever reads better", () => {
    expect(normalizeHexColor("#ABC")).toBe("#aabbcc");
    expect(normalizeHexColor(" #1D4ED8 ")).toBe("#1d4ed8");
    expect(normalizeHexColor("blue")).toBeUndefined();
    expect(normalizeHexColor("#12345")).toBeUndefined();
    expect(readableTextColor("#1d4ed8")).toBe("#ffffff");
    expect(readableTextColor("#ffd54f")).toBe("#000000");
    // Whatever the colour, its text reads at 4.5:1 at least.
    for (let grey = 0; grey <= 255; grey += 1) {
      const hex = `#${grey.toString(16).padStart(2, "0").repeat(3)}`;
      expect(contrastRatio(hex, readableTextColor(hex))).toBeGreaterThanOrEqual(4.5);
    }
  });
});
