// Choosing files to attach (limits shown before anything is sent, problems per file, upload
// progress) and showing attachments of a conversation (images inline, other files as
// downloads), each fetched through the player API's pre-signed redirect.
import { useEffect, useState } from "preact/hooks";
import type { AttachmentRef } from "../api.ts";
import { useApp } from "../app-context.tsx";
import { ACCEPT, checkFile, formatSize, MAX_FILE_BYTES, uploadFile } from "../upload.ts";

export interface PickedFile {
  file: File;
  problem: "tooLarge" | "badType" | null;
  progress: number | null;
  failed: boolean;
}

export function useFiles() {
  const [files, setFiles] = useState<PickedFile[]>([]);
  const { api } = useApp();
  return {
    files,
    add(list: FileList | null) {
      const picked = [...(list ?? [])].map((file) => ({ file, problem: checkFile(file), progress: null, failed: false }));
      setFiles((current) => [...current, ...picked]);
    },
    remove(index: number) {
      setFiles((current) => current.filter((_, i) => i !== index));
    },
    clear() {
      setFiles([]);
    },
    valid: () => files.every((file) => file.problem === null),
    /** Uploads every file in turn; throws when one fails (its row says so). */
    async upload(): Promise<AttachmentRef[]> {
      const refs: AttachmentRef[] = [];
      for (let index = 0; index < files.length; index++) {
        const update = (patch: Partial<PickedFile>) => setFiles((current) => current.map((file, i) => (i === index ? { ...file, ...patch } : file)));
        try {
          update({ progress: 0, failed: false });
          refs.push(await uploadFile(api, files[index]!.file, (progress) => update({ progress })));
        } catch (error) {
          update({ failed: true, progress: null });
          throw error;
        }
      }
      return refs;
    },
  };
}

/** A file input with its limits and picked files; `required` false marks the label "(optional)", as every optional field of the page is marked. */
export function FilePicker({ id, label, picker, required = false }: { id: string; label: string; picker: ReturnType<typeof useFiles>; required?: boolean }) {
  const { locale } = useApp();
  const { t } = locale;
  const limits = t("contact.limits", { size: formatSize(MAX_FILE_BYTES, locale.language) });
  return (
    <div class="field">
      <label for={id}>
        <bdi>{label}</bdi>
        {!required && <span class="muted"> {t("contact.optional")}</span>}
      </label>
      <p id={`${id}-limits`} class="hint">
        {limits}
      </p>
      <input
        id={id}
        type="file"
        multiple
        accept={ACCEPT}
        aria-describedby={`${id}-limits`}
        onChange={(event) => {
          const input = event.currentTarget as HTMLInputElement;
          picker.add(input.files);
          input.value = "";
        }}
      />
      {picker.files.length > 0 && (
        <ul class="files">
          {picker.files.map((picked, index) => {
            const name = picked.file.name;
            return (
              <li key={`${name}-${index}`}>
                <span class="file-name">
                  <bdi>{name}</bdi> ({formatSize(picked.file.size, locale.language)})
                </span>
                {picked.problem && (
                  <span class="error" role="alert">
                    {picked.problem === "tooLarge" ? t("upload.tooLarge", { name, size: formatSize(MAX_FILE_BYTES, locale.language) }) : t("upload.badType", { name })}
                  </span>
                )}
                {picked.progress !== null && (
                  <progress max={100} value={picked.progress} aria-label={t("upload.progress", { name, percent: picked.progress })}>
                    {picked.progress}%
                  </progress>
                )}
                {picked.failed && (
                  <span class="error" role="alert">
                    {t("upload.failed", { name })}
                  </span>
                )}
                <button type="button" class="link remove" onClick={() => picker.remove(index)} aria-label={t("upload.remove", { name })}>
                  ×
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}

export function AttachmentView({ ticketId, attachment }: { ticketId: string; attachment: AttachmentRef }) {
  const { api, locale } = useApp();
  const { t } = locale;
  const [blob, setBlob] = useState<{ url: string; type: string } | "failed" | null>(null);

  useEffect(() => {
    let url: string | undefined;
    let cancelled = false;
    api.attachment(ticketId, attachment.id).then(
      (data) => {
        if (cancelled) return;
        url = URL.createObjectURL(data);
        setBlob({ url, type: data.type });
      },
      () => !cancelled && setBlob("failed"),
    );
    return () => {
      cancelled = true;
      if (url) URL.revokeObjectURL(url);
    };
  }, [ticketId, attachment.id]);

  if (blob === null) return <span class="attachment muted">{t("app.loading")}</span>;
  if (blob === "failed") return <span class="attachment error">{t("chat.attachmentFailed")}</span>;
  if (blob.type.startsWith("image/")) return <img class="attachment image" src={blob.url} alt={t("chat.imageAlt")} />;
  const name = `${t("chat.attachment")} (${blob.type || "file"})`;
  return (
    <a class="attachment file" href={blob.url} download={attachment.id}>
      {t("chat.download", { name })}
    </a>
  );
}
