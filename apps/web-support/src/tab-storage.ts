// The tab's sessionStorage, which some in-game web views disable (reading or writing it then
// throws): a read finds nothing and a write keeps nothing, and callers keep what they need in
// memory for the page.

export function readTabStorage(key: string): string | null {
  try {
    return sessionStorage.getItem(key);
  } catch {
    return null;
  }
}

/** Stores `value` under `key`; null removes it. */
export function writeTabStorage(key: string, value: string | null): void {
  try {
    if (value === null) sessionStorage.removeItem(key);
    else sessionStorage.setItem(key, value);
  } catch {
    // Storage disabled: nothing kept beyond this page.
  }
}
