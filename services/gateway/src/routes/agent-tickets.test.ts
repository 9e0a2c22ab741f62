// /agent-api/tickets before any ticket is read: a session limited to two-factor enrolment is
// refused on every ticket route (403), and a request without a session (401) or with an API key
// (401) never reaches the tickets service (here a router without services, which would answer
// Unimplemented, a 5xx).
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateResponse } from "../openapi/validation.ts";
import { FakeAgentAccess, startTestGateway, type TestGateway } from "../test-helpers.ts";

describe("/agent-api ticket routes and the session", () => {
  const agentAccess = new FakeAgentAccess();
  const enrolling = agentAccess.addUser({ requireTwoFactor: true });
  let t: TestGateway;

  beforeAll(async () => {
    t = await startTestGateway({ agentAccess, config: { AGENT_SIGN_IN_RATE_LIMIT_PER_ADDRESS: 0 } });
  });
  afterAll(() => t.stop());

  const ticketId = randomUUID();
  const routes: [string, string, string, unknown?][] = [
    ["listAgentTickets", "GET", "/agent-api/tickets"],
    ["listAgentViews", "GET", "/agent-api/views"],
    ["getAgentTicket", "GET", `/agent-api/tickets/${ticketId}`],
    ["getAgentTicketAttachment", "GET", `/agent-api/tickets/${ticketId}/attachments/abc`],
    ["performAgentTicketActions", "POST", `/agent-api/tickets/${ticketId}/actions`, { actions: [{ type: "resolveTicket" }] }],
    ["mergeAgentTicket", "POST", `/agent-api/tickets/${ticketId}/merge`, { targetTicketId: randomUUID() }],
  ];

  it("refuses a session limited to two-factor enrolment on every ticket route (403)", async () => {
    const signIn = await t.request("/agent-api/sign-in", { method: "POST", headers: { origin: t.url }, json: { email: enrolling.email, password: enrolling.password } });
    expect(signIn.status, signIn.text).toBe(204);
    const cookie = /^(support_session=[^;]+)/.exec(signIn.headers.get("set-cookie") ?? "")![1]!;
    const me = (await t.request("/agent-api/me", { headers: { cookie } })).body as { csrfToken: string; session: { scope: string } };
    expect(me.session.scope).toBe("two_factor_enrolment");
    for (const [operationId, method, path, json] of routes) {
      const response = await t.request(path, { method, json, headers: { cookie, origin: t.url, "x-csrf-token": me.csrfToken } });
      expect(response.status, `${method} ${path} ${response.text}`).toBe(403);
      expect(response.body).toMatchObject({ code: "permission_denied", message: expect.stringContaining("two-factor") });
      expect(validateResponse(operationId, response.status, response.body, response.headers)).toBeNull();
    }
  });

  it("answers 401 without a session or with an API key, before any ticket is read", async () => {
    for (const [operationId, method, path, json] of routes) {
      for (const headers of [{ origin: t.url }, { origin: t.url, authorization: "Bearer some-api-key" }]) {
        const response = await t.request(path, { method, json, headers });
        expect(response.status, `${method} ${path} ${response.text}`).toBe(401);
        expect(validateResponse(operationId, response.status, response.body, response.headers)).toBeNull();
      }
    }
  });
});
