// Attachments go straight to storage through the pre-signed upload flow: the API hands out a
// signed PUT for the declared name, type and size, and the bytes go there with progress.
// The limits are the API's and are checked before anything is sent.
import type { PlayerApi, AttachmentRef } from "./api.ts";

export const ALLOWED_TYPES = [
  "image/svg+xml",
  "image/png",
  "image/jpeg",
  "image/gif",
  "application/pdf",
  "video/mp4",
  "video/quicktime",
  "text/plain",
  "application/zip",
  "application/vnd.rar",
] as const;
export const MAX_FILE_BYTES = 200 * 1024 * 1024;
export const ACCEPT = ALLOWED_TYPES.join(",");

/** Browsers report some types differently: map them to the API's names. */
export function fileTypeOf(file: File): string {
  const type = file.type.toLowerCase();
  if (type === "application/x-zip-compressed") return "application/zip";
  if (type === "application/x-rar-compressed" || type === "application/x-rar") return "application/vnd.rar";
  if (type) return type;
  const extension = file.name.toLowerCase().split(".").pop();
  return { txt: "text/plain", log: "text/plain", zip: "application/zip", rar: "application/vnd.rar", mov: "video/quicktime" }[extension ?? ""] ?? "";
}

export type FileProblem = "tooLarge" | "badType" | null;

export function checkFile(file: File): FileProblem {
  if (!(ALLOWED_TYPES as readonly string[]).includes(fileTypeOf(file))) return "badType";
  if (file.size <= 0 || file.size > MAX_FILE_BYTES) return "tooLarge";
  return null;
}

export function formatSize(bytes: number, language: string): string {
  const units = ["B", "KB", "MB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${new Intl.NumberFormat(language, { maximumFractionDigits: 1 }).format(value)} ${units[unit]}`;
}

/** Uploads one checked file; `onProgress` gets 0..100. */
export async function uploadFile(api: PlayerApi, file: File, onProgress: (percent: number) => void): Promise<AttachmentRef> {
  const instruction = await api.startUpload({ fileName: file.name, fileType: fileTypeOf(file), fileSize: file.size });
  // XMLHttpRequest, not fetch: only it reports upload progress.
  await new Promise<void>((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open(instruction.uploadMethod, instruction.uploadUrl);
    for (const [name, value] of Object.entries(instruction.uploadHeaders)) request.setRequestHeader(name, value);
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(Math.round((event.loaded / event.total) * 100));
    };
    request.onload = () => (request.status >= 200 && request.status < 300 ? resolve() : reject(new Error(`upload answered ${request.status}`)));
    request.onerror = () => reject(new Error("upload failed"));
    request.send(file);
  });
  onProgress(100);
  return { id: instruction.attachmentId };
}
