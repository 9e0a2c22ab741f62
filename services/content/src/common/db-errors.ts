// Turns a unique violation (two concurrent creations of the same slug, name or key) into the
// domain's 409 instead of a 500.
import { conflict } from "@support/errors";
import { pgErrorCode } from "@support/db";

export async function uniqueOrConflict<T>(query: Promise<T>, message: string): Promise<T> {
  try {
    return await query;
  } catch (error) {
    if (pgErrorCode(error) === "23505") throw conflict(message);
    throw error;
  }
}
