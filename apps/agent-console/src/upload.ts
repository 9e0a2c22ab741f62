// Files of a reply or note go straight to the storage, as on the player's page: the agent API
// hands out a signed PUT for the ticket (declared name, type and size), and the browser sends the
// bytes there with progress. The limits are the API's, checked before anything is sent.
import { call, type UploadInstruction } from "./api.ts";

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

/** Images the conversation shows inline. SVG is not among them: the storage serves it as a download (it could run script). */
export const INLINE_IMAGE_TYPES: ReadonlySet<string> = new Set(["image/png", "image/jpeg", "image/gif"]);

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
  if (file.name.length === 0 || file.name.length > 255) return "badType";
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

/** One upload in flight: `done` settles with the attachment id; `abort` stops it. */
export interface Upload {
  done: Promise<string>;
  abort(): void;
}

/** Uploads one checked file for a reply or note on the ticket; `onProgress` gets 0..100. */
export function uploadFile(ticketId: string, file: File, onProgress: (percent: number) => void): Upload {
  let request: XMLHttpRequest | undefined;
  let aborted = false;
  const done = (async () => {
    const { body: instruction } = await call<UploadInstruction>("POST", `/tickets/${ticketId}/attachments`, {
      fileName: file.name,
      fileType: fileTypeOf(file),
      fileSize: file.size,
    });
    if (aborted) throw new Error("upload removed");
    // XMLHttpRequest, not fetch: only it reports upload progress.
    await new Promise<void>((resolve, reject) => {
      request = new XMLHttpRequest();
      request.open(instruction.uploadMethod, instruction.uploadUrl);
      for (const [name, value] of Object.entries(instruction.uploadHeaders)) request.setRequestHeader(name, value);
      request.upload.onprogress = (event) => {
        if (event.lengthComputable) onProgress(Math.round((event.loaded / event.total) * 100));
      };
      request.onload = () => (request!.status >= 200 && request!.status < 300 ? resolve() : reject(new Error(`upload answered ${request!.status}`)));
      request.onerror = () => reject(new Error("upload failed"));
      request.onabort = () => reject(new Error("upload removed"));
      request.send(file);
    });
    onProgress(100);
    return instruction.attachmentId;
  })();
  return {
    done,
    abort() {
      aborted = true;
      request?.abort();
    },
  };
}
