// Timestamps between protobuf and the document's RFC 3339 date-times.
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";

/** RFC 3339 date-time of a protobuf Timestamp the service always sets; its absence is a bug (500). */
export function isoTimestamp(timestamp: Timestamp | undefined, service: string, what: string): string {
  if (timestamp === undefined) throw new Error(`${service} returned no ${what}`);
  return timestampDate(timestamp).toISOString();
}

/** RFC 3339 date-time of an optional protobuf Timestamp; null when absent. */
export function isoTimestampOrNull(timestamp: Timestamp | undefined): string | null {
  return timestamp === undefined ? null : timestampDate(timestamp).toISOString();
}
