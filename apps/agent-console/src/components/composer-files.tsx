// The composer's files: chosen with a button (or dropped on the composer), each uploaded at once
// to the storage with its progress shown, removable until the reply or note is sent, a failed
// upload said by name. The reply carries the ids of the finished uploads.
import { useEffect, useRef, useState } from "preact/hooks";
import { language, t } from "../i18n.ts";
import { ACCEPT, checkFile, formatSize, MAX_FILE_BYTES, uploadFile, type FileProblem, type Upload } from "../upload.ts";

export interface ComposerFile {
  key: number;
  name: string;
  size: number;
  problem: FileProblem;
  progress: number;
  state: "uploading" | "done" | "failed" | "refused";
  attachmentId?: string;
}

export interface ComposerFiles {
  files: ComposerFile[];
  add(list: Iterable<File>): void;
  remove(key: number): void;
  /** Forgets every file (after sending). */
  clear(): void;
  /** The ids to send, or why not yet: a file still uploading, or one that failed. */
  ready(): { ids: string[] } | { waiting: "uploading" | "failed" };
}

let nextKey = 1;

export function useComposerFiles(ticketId: string): ComposerFiles {
  const [files, setFiles] = useState<ComposerFile[]>([]);
  const uploads = useRef(new Map<number, Upload>());
  const update = (key: number, change: Partial<ComposerFile>) => setFiles((list) => list.map((file) => (file.key === key ? { ...file, ...change } : file)));

  // Another ticket, or the page closing: stop what is still being sent.
  useEffect(() => {
    const running = uploads.current;
    return () => {
      for (const upload of running.values()) upload.abort();
      running.clear();
      setFiles([]);
    };
  }, [ticketId]);

  return {
    files,
    add(list) {
      const added: ComposerFile[] = [];
      for (const file of list) {
        const key = nextKey++;
        const problem = checkFile(file);
        added.push({ key, name: file.name, size: file.size, problem, progress: 0, state: problem ? "refused" : "uploading" });
        if (problem) continue;
        const upload = uploadFile(ticketId, file, (progress) => update(key, { progress }));
        uploads.current.set(key, upload);
        upload.done.then(
          (attachmentId) => update(key, { state: "done", progress: 100, attachmentId }),
          () => {
            if (uploads.current.has(key)) update(key, { state: "failed" });
          },
        ).finally(() => uploads.current.delete(key));
      }
      setFiles((list) => [...list, ...added]);
    },
    remove(key) {
      const upload = uploads.current.get(key);
      uploads.current.delete(key);
      upload?.abort();
      setFiles((list) => list.filter((file) => file.key !== key));
    },
    clear() {
      setFiles([]);
    },
    ready() {
      if (files.some((file) => file.state === "uploading")) return { waiting: "uploading" };
      if (files.some((file) => file.state === "failed" || file.state === "refused")) return { waiting: "failed" };
      return { ids: files.map((file) => file.attachmentId!) };
    },
  };
}

/** The button, the hidden file input it opens, and the list of chosen files. */
export function ComposerFilesField({ picker, disabled }: { picker: ComposerFiles; disabled: boolean }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <div class="composer-files">
      <input
        ref={input}
        id="composer-files"
        type="file"
        multiple
        accept={ACCEPT}
        class="visually-hidden"
        tabIndex={-1}
        aria-hidden="true"
        onChange={(event) => {
          const element = event.currentTarget as HTMLInputElement;
          if (element.files) picker.add(element.files);
          element.value = "";
        }}
      />
      <button type="button" class="button small" disabled={disabled} aria-describedby="composer-files-hint" onClick={() => input.current?.click()}>
        {t("files.attach")}
      </button>
      <p class="hint" id="composer-files-hint">
        {t("files.hint", { size: formatSize(MAX_FILE_BYTES, language) })}
      </p>
      {picker.files.length > 0 && (
        <ul class="file-list" aria-label={t("files.list")}>
          {picker.files.map((file) => (
            <li key={file.key} class={`file file-${file.state}`}>
              <span class="file-name">{file.name}</span>
              <span class="file-size">{formatSize(file.size, language)}</span>
              {file.state === "uploading" && (
                <progress max={100} value={file.progress} aria-label={t("files.progress", { name: file.name, percent: file.progress })}>
                  {file.progress}%
                </progress>
              )}
              <span class="file-state" role={file.state === "failed" || file.state === "refused" ? "alert" : undefined}>
                {file.state === "uploading"
                  ? `${file.progress}%`
                  : file.state === "done"
                    ? t("files.done")
                    : file.state === "failed"
                      ? t("files.failed")
                      : file.problem === "tooLarge"
                        ? t("files.tooLarge", { size: formatSize(MAX_FILE_BYTES, language) })
                        : t("files.badType")}
              </span>
              <button type="button" class="remove-file" aria-label={t("files.remove", { name: file.name })} onClick={() => picker.remove(file.key)}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
