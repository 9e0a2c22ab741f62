// The session code arrives as ?sid=<code>. It is moved out of the address bar at once (so it
// is neither bookmarked, shared nor sent as a referrer) into sessionStorage, which survives a
// reload of the tab but not the tab itself. The code that the service accepted is remembered
// the same way: a refused code that had worked is expired, one that never worked is not valid
// (mistyped, made up, or cut short in copying).
import { readTabStorage, writeTabStorage } from "./tab-storage.ts";

const STORAGE_KEY = "support.sid";
const ACCEPTED_KEY = "support.sid.accepted";
let acceptedInMemory: string | null = null;

export interface TakenCode {
  code: string | null;
  /** True when the code came from the address just now (a freshly opened session). */
  fresh: boolean;
}

export function takeSessionCode(): TakenCode {
  const url = new URL(location.href);
  const fromUrl = url.searchParams.get("sid");
  if (fromUrl) {
    url.searchParams.delete("sid");
    history.replaceState(history.state, "", url.pathname + url.search + url.hash);
    // Storage disabled: the code lives in memory for this page.
    writeTabStorage(STORAGE_KEY, fromUrl);
    return { code: fromUrl, fresh: true };
  }
  return { code: readTabStorage(STORAGE_KEY), fresh: false };
}

/** The service accepted `code` (a session was read with it). */
export function rememberAccepted(code: string): void {
  acceptedInMemory = code;
  writeTabStorage(ACCEPTED_KEY, code);
}

/** Whether `code` was accepted before in this tab: a refusal now means it expired. */
export function wasAccepted(code: string): boolean {
  return acceptedInMemory === code || readTabStorage(ACCEPTED_KEY) === code;
}
