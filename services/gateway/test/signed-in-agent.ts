// A user of the support application signed in through the real gateway: the session cookie as
// the browser would send it back, the session's CSRF token and the user's id.
import { expect } from "vitest";
import type { Stack, StackResponse } from "./stack.ts";

export interface SignedInAgent {
  cookie: string;
  csrfToken: string;
  userId: string;
}

/** The `support_session=…` pair of a sign-in's Set-Cookie (loopback http: no __Host- prefix). */
export const sessionCookieOf = (response: StackResponse) => /^(support_session=[^;]+)/.exec(response.headers.get("set-cookie") ?? "")?.[1];

/** Signs in on `gateway` (the stack's, or a replica) with the application's Origin, then reads /agent-api/me. */
export async function signInAgent(gateway: { url: string; request: Stack["request"] }, email: string, password: string): Promise<SignedInAgent> {
  const response = await gateway.request("/agent-api/sign-in", { method: "POST", headers: { origin: new URL(gateway.url).origin }, json: { email, password } });
  expect(response.status, response.text).toBe(204);
  const cookie = sessionCookieOf(response)!;
  const me = (await gateway.request("/agent-api/me", { headers: { cookie } })).body as { csrfToken: string; user: { id: string } };
  return { cookie, csrfToken: me.csrfToken, userId: me.user.id };
}

type Gateway = { url: string; request: Stack["request"] };

/** A read as the signed-in user's browser makes it: with the session cookie. */
export function agentRead(gateway: Gateway, user: SignedInAgent, path: string): Promise<StackResponse> {
  return gateway.request(path, { headers: { cookie: user.cookie } });
}

/** A change as the signed-in user's browser makes it: the cookie, the application's Origin and the session's CSRF token. */
export function agentWrite(gateway: Gateway, user: SignedInAgent, method: "POST" | "PUT" | "PATCH" | "DELETE", path: string, json?: unknown): Promise<StackResponse> {
  return gateway.request(path, { method, headers: { cookie: user.cookie, origin: new URL(gateway.url).origin, "x-csrf-token": user.csrfToken }, ...(json === undefined ? {} : { json }) });
}
