// A game's branding of the web support page: an accent colour, a colour scheme (light, dark or
// the player's system preference) and a logo. The logo is a small raster image kept by content
// itself (PNG, JPEG or WebP only: no SVG, which can carry script; at most 256 KiB and 16 to 1024
// pixels a side, read from the image's own header, whatever the uploader claims), served by the
// gateway from our origin under its SHA-256. The colour may be any hex colour: the text on it is
// black or white, whichever contrasts more (at least 4.58:1 for any colour, WCAG AA).
import { createHash } from "node:crypto";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ValidationIssue } from "@support/errors";
import { throwIfInvalid } from "../common/validation.ts";

export const COLOR_SCHEMES = ["light", "dark", "system"] as const;
export type ColorScheme = (typeof COLOR_SCHEMES)[number];

/** The page's own accent colour (apps/web-support/src/styles.css), used when none is set. */
export const DEFAULT_ACCENT_COLOR = "#1d4ed8";
export const DEFAULT_COLOR_SCHEME: ColorScheme = "light";

export const LOGO_MAX_BYTES = 256 * 1024;
export const LOGO_MIN_SIDE = 16;
export const LOGO_MAX_SIDE = 1024;

export type LogoContentType = "image/png" | "image/jpeg" | "image/webp";

export interface LogoInfo {
  sha256: string;
  contentType: LogoContentType;
  size: number;
  width: number;
  height: number;
}

export interface GameBranding {
  gameId: string;
  companyId: string;
  accentColor: string | null;
  colorScheme: ColorScheme;
  logo: LogoInfo | null;
  updatedAt: Date | null;
}

export interface BrandingInput {
  accentColor?: string | null | undefined;
  colorScheme?: string | undefined;
  /** New logo bytes; undefined keeps the logo, null removes it. */
  logo?: Uint8Array | null | undefined;
}

export interface ParsedBranding {
  accentColor: string | null;
  colorScheme: ColorScheme;
  /** undefined: unchanged; null: removed. */
  logo: { info: LogoInfo; bytes: Buffer } | null | undefined;
}

/** "#rgb" or "#rrggbb" as "#rrggbb" in lower case; undefined for anything else. */
export function normalizeHexColor(value: string): string | undefined {
  const match = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(value.trim());
  if (!match) return undefined;
  const hex = match[1]!.toLowerCase();
  return hex.length === 3 ? `#${[...hex].map((digit) => digit + digit).join("")}` : `#${hex}`;
}

/** WCAG relative luminance of "#rrggbb". */
export function relativeLuminance(hex: string): number {
  const channel = (offset: number) => {
    const value = parseInt(hex.slice(offset, offset + 2), 16) / 255;
    return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** Black or white, whichever is more readable on the colour. */
export function readableTextColor(background: string): "#000000" | "#ffffff" {
  return contrastRatio(background, "#000000") >= contrastRatio(background, "#ffffff") ? "#000000" : "#ffffff";
}

/** The image's type and size from its own bytes; a string saying why not otherwise. */
export function inspectImage(bytes: Uint8Array): { contentType: LogoContentType; width: number; height: number } | string {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const head = data.subarray(0, 512).toString("latin1").trimStart().toLowerCase();
  if (head.startsWith("<svg") || head.startsWith("<?xml") || head.includes("<svg")) return "must be a PNG, JPEG or WebP image (SVG is not accepted)";
  // PNG: the signature, then IHDR with the width and height.
  if (data.length >= 24 && data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) && data.toString("latin1", 12, 16) === "IHDR") {
    return { contentType: "image/png", width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
  }
  // JPEG: SOI, then segments up to a start-of-frame marker.
  if (data.length >= 4 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) {
    let offset = 2;
    while (offset + 9 < data.length) {
      if (data[offset] !== 0xff) return "is not a readable JPEG image";
      const marker = data[offset + 1]!;
      if (marker === 0xff) { offset += 1; continue; }
      const length = data.readUInt16BE(offset + 2);
      const isStartOfFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
      if (isStartOfFrame) return { contentType: "image/jpeg", height: data.readUInt16BE(offset + 5), width: data.readUInt16BE(offset + 7) };
      offset += 2 + length;
    }
    return "is not a readable JPEG image";
  }
  // WebP: RIFF....WEBP, then a VP8, VP8L or VP8X chunk.
  if (data.length >= 30 && data.toString("latin1", 0, 4) === "RIFF" && data.toString("latin1", 8, 12) === "WEBP") {
    const chunk = data.toString("latin1", 12, 16);
    if (chunk === "VP8 " && data[23] === 0x9d && data[24] === 0x01 && data[25] === 0x2a) {
      return { contentType: "image/webp", width: data.readUInt16LE(26) & 0x3fff, height: data.readUInt16LE(28) & 0x3fff };
    }
    if (chunk === "VP8L" && data[20] === 0x2f) {
      const bits = data.readUInt32LE(21);
      return { contentType: "image/webp", width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
    }
    if (chunk === "VP8X") {
      return { contentType: "image/webp", width: data.readUIntLE(24, 3) + 1, height: data.readUIntLE(27, 3) + 1 };
    }
    return "is not a readable WebP image";
  }
  return "must be a PNG, JPEG or WebP image";
}

export function parseLogo(bytes: Uint8Array, issues: ValidationIssue[], path = "/logo"): { info: LogoInfo; bytes: Buffer } | undefined {
  if (bytes.byteLength === 0) {
    issues.push({ path, message: "is empty" });
    return undefined;
  }
  if (bytes.byteLength > LOGO_MAX_BYTES) {
    issues.push({ path, message: `must be at most ${LOGO_MAX_BYTES / 1024} KiB (it has ${Math.ceil(bytes.byteLength / 1024)} KiB)` });
    return undefined;
  }
  const image = inspectImage(bytes);
  if (typeof image === "string") {
    issues.push({ path, message: image });
    return undefined;
  }
  const { width, height } = image;
  if (width < LOGO_MIN_SIDE || height < LOGO_MIN_SIDE || width > LOGO_MAX_SIDE || height > LOGO_MAX_SIDE) {
    issues.push({ path, message: `must be ${LOGO_MIN_SIDE} to ${LOGO_MAX_SIDE} pixels wide and high (it is ${width}×${height})` });
    return undefined;
  }
  const copy = Buffer.from(bytes);
  return { bytes: copy, info: { sha256: createHash("sha256").update(copy).digest("hex"), contentType: image.contentType, size: copy.byteLength, width, height } };
}

export function parseBranding(input: BrandingInput): ParsedBranding {
  const issues: ValidationIssue[] = [];
  let accentColor: string | null = null;
  if (input.accentColor !== undefined && input.accentColor !== null && input.accentColor.trim() !== "") {
    accentColor = normalizeHexColor(input.accentColor) ?? null;
    if (accentColor === null) issues.push({ path: "/accentColor", message: "must be a hex colour (#rrggbb or #rgb)" });
  }
  const scheme = input.colorScheme === undefined || input.colorScheme === "" ? DEFAULT_COLOR_SCHEME : input.colorScheme;
  if (!(COLOR_SCHEMES as readonly string[]).includes(scheme)) issues.push({ path: "/colorScheme", message: `must be one of ${COLOR_SCHEMES.join(", ")}` });
  let logo: ParsedBranding["logo"];
  if (input.logo === null) logo = null;
  else if (input.logo !== undefined) logo = parseLogo(input.logo, issues);
  throwIfInvalid(issues);
  return { accentColor, colorScheme: scheme as ColorScheme, logo };
}

/** The branding as the audit log keeps it: the logo by its hash and size, never its bytes. */
export function auditedBranding(branding: Pick<GameBranding, "accentColor" | "colorScheme" | "logo">, gameName: string): Record<string, unknown> {
  return {
    name: gameName,
    accentColor: branding.accentColor,
    colorScheme: branding.colorScheme,
    logo: branding.logo && { sha256: branding.logo.sha256, size: branding.logo.size, contentType: branding.logo.contentType, width: branding.logo.width, height: branding.logo.height },
  };
}

export function brandingEventData(branding: GameBranding) {
  return {
    gameId: branding.gameId,
    accentColor: branding.accentColor,
    colorScheme: branding.colorScheme,
    logo: branding.logo,
    updatedAt: (branding.updatedAt ?? new Date()).toISOString(),
  };
}

/** The branding of a game nobody branded. */
export function defaultBranding(gameId: string, companyId: string): GameBranding {
  return { gameId, companyId, accentColor: null, colorScheme: DEFAULT_COLOR_SCHEME, logo: null, updatedAt: null };
}

/** content.v1.GameBranding: the stored branding, with the text colour on the accent (the default's when none). */
export function brandingMessage(branding: GameBranding) {
  return {
    accentColor: branding.accentColor ?? undefined,
    accentTextColor: readableTextColor(branding.accentColor ?? DEFAULT_ACCENT_COLOR),
    colorScheme: branding.colorScheme,
    logo: branding.logo ?? undefined,
    updatedAt: branding.updatedAt ? timestampFromDate(branding.updatedAt) : undefined,
  };
}
