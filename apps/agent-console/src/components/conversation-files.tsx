// The files of one conversation entry: images inline (through the agent API's short-lived
// download link, which the storage answers: its origin is in the page's img-src), other files as
// links named after the file. A file media no longer knows keeps its numbered link.
import type { AttachmentInfo } from "../api.ts";
import { language, t } from "../i18n.ts";
import { formatSize, INLINE_IMAGE_TYPES } from "../upload.ts";

export function ConversationFiles({ ticketId, attachments, known }: { ticketId: string; attachments: { id: string }[]; known: ReadonlyMap<string, AttachmentInfo> }) {
  const href = (id: string) => `/agent-api/tickets/${ticketId}/attachments/${encodeURIComponent(id)}`;
  const images = attachments.filter((attachment) => INLINE_IMAGE_TYPES.has(known.get(attachment.id)?.fileType ?? ""));
  const others = attachments.filter((attachment) => !images.includes(attachment));
  return (
    <>
      {images.length > 0 && (
        <ul class="images">
          {images.map((attachment) => {
            const info = known.get(attachment.id)!;
            return (
              <li key={attachment.id}>
                <figure>
                  <a href={href(attachment.id)} target="_blank" rel="noopener">
                    <img src={href(attachment.id)} alt={t("files.imageAlt", { name: info.fileName })} loading="lazy" />
                  </a>
                  <figcaption>{info.fileName}</figcaption>
                </figure>
              </li>
            );
          })}
        </ul>
      )}
      {others.length > 0 && (
        <ul class="attachments">
          {others.map((attachment) => {
            const info = known.get(attachment.id);
            return (
              <li key={attachment.id}>
                <a href={href(attachment.id)} target="_blank" rel="noopener">
                  {info ? info.fileName : t("event.attachment", { number: attachments.indexOf(attachment) + 1 })}
                </a>
                {info && <span class="muted"> ({formatSize(info.fileSize, language)})</span>}
              </li>
            );
          })}
        </ul>
      )}
    </>
  );
}
