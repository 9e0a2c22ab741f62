// The session code arrives as ?sid=<code>. It is moved out of the address bar at once (so it
// is neither bookmarked, shared nor sent as a referrer) into sessionStorage, which survives a
// reload of the tab but not the tab itself.
const STORAGE_KEY = "support.sid";

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
    try {
      sessionStorage.setItem(STORAGE_KEY, fromUrl);
    } catch {
      // Storage disabled (some in-game web views): the code lives in memory for this page.
    }
    return { code: fromUrl, fresh: true };
  }
  let stored: string | null = null;
  try {
    stored = sessionStorage.getItem(STORAGE_KEY);
  } catch {
    stored = null;
  }
  return { code: stored, fresh: false };
}
