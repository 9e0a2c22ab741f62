import type { Generated } from "kysely";

export interface AttachmentTable {
  /** The public attachment id (base64url, 144 random bits). */
  id: string;
  company_id: string;
  game_id: string;
  /** `<companyId>/<gameId>/<id>` in S3_BUCKET. */
  object_key: string;
  /** The original name; null only on a tombstone. */
  file_name: string | null;
  file_type: string;
  file_size: number;
  /** External player id given at upload. */
  player_id: string | null;
  /** Service player id linked by the first claim that named one. */
  service_player_id: string | null;
  ticket_id: string | null;
  /** The web support session that requested the upload; null for the company's API key. */
  uploader_session_id: string | null;
  created_at: Generated<Date>;
  /** When the pre-signed PUT stops working: until then the object may still (re)appear. */
  upload_expires_at: Date;
  uploaded_at: Date | null;
  used_at: Date | null;
  /**
   * Set on a tombstone: an attachment erased while its upload URL was still valid. The row
   * (without file name or player ids) stays so that the sweep deletes whatever a late upload
   * puts under its key once the URL has expired, then removes it.
   */
  deleted_at: Date | null;
}

export interface AttachmentTables {
  attachments: AttachmentTable;
}
