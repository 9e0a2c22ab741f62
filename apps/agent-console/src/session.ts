// Who is signed in: undefined while it is being asked, null when nobody is.
import { signal } from "@preact/signals";
import { ApiError, call, setCsrfToken, type Me } from "./api.ts";
import { navigate } from "./router.ts";

export const me = signal<Me | null | undefined>(undefined);

export async function loadMe(): Promise<Me | null> {
  try {
    const { body } = await call<Me>("GET", "/me");
    setCsrfToken(body.csrfToken);
    me.value = body;
    return body;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      setCsrfToken(undefined);
      me.value = null;
      return null;
    }
    throw error;
  }
}

/**
 * The user's availability for routing (docs/automation.md): available, routing gives them
 * tickets of their games with routing on; away, it stops and their unanswered tickets go back.
 */
export async function setAvailable(available: boolean): Promise<void> {
  const { body } = await call<{ available: boolean }>("PUT", "/me/availability", { available });
  if (me.value) me.value = { ...me.value, user: { ...me.value.user, available: body.available } };
}

/** How often an open console uses its session: content sets away a user whose sessions all went quiet (AGENT_AWAY_AFTER_SECONDS, 5 minutes). */
export const STILL_HERE_EVERY_MS = 60_000;

/**
 * Says the console is still open (reads the session's user), and takes the availability as
 * the server has it: another tab's switch, or away set by the server.
 */
export async function stillHere(): Promise<void> {
  const { body } = await call<Me>("GET", "/me");
  if (me.value && body.user.available !== me.value.user.available) me.value = { ...me.value, user: { ...me.value.user, available: body.user.available } };
}

/** Ends this session (or every session of the user) and goes to the sign-in page. */
export async function signOut(everywhere: boolean): Promise<void> {
  await call("POST", everywhere ? "/sign-out-everywhere" : "/sign-out");
  setCsrfToken(undefined);
  me.value = null;
  navigate("/sign-in", { replace: true });
}
