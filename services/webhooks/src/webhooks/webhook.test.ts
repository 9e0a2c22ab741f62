import { describe, expect, it } from "vitest";
import { wants } from "./webhook.ts";

const galaxy = "0d3f6f55-6a43-4b4a-8a55-0f4c8f7b2d10";
const farm = "7b0f3a52-5a43-4e0a-9d7f-0c3c1b2f9a11";

describe("which subscriptions want an event", () => {
  it("takes the types a subscription names, when it is enabled", () => {
    expect(wants({ enabled: true, eventTypes: ["ticket.created"], gameIds: [] }, "ticket.created", galaxy)).toBe(true);
    expect(wants({ enabled: true, eventTypes: ["ticket.created"], gameIds: [] }, "ticket.closed", galaxy)).toBe(false);
    expect(wants({ enabled: false, eventTypes: ["ticket.created"], gameIds: [] }, "ticket.created", galaxy)).toBe(false);
  });

  it("filters by game, except events of the company as a whole", () => {
    const galaxyOnly = { enabled: true, eventTypes: ["ticket.created", "audit.recorded"], gameIds: [galaxy] };
    expect(wants(galaxyOnly, "ticket.created", galaxy)).toBe(true);
    expect(wants(galaxyOnly, "ticket.created", farm)).toBe(false);
    expect(wants(galaxyOnly, "audit.recorded", null)).toBe(true);
  });
});
