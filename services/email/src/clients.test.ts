import { describe, expect, it } from "vitest";
import { createCompanySenders, type ContentClient } from "./clients.ts";

describe("companies' senders", () => {
  it("asks content once per company within the minute, and again after it", async () => {
    let calls = 0;
    let name: string | undefined = "Star Studio Support";
    const content = {
      getCompany: async ({ companyId }: { companyId: string }) => {
        calls += 1;
        return { company: { id: companyId, emailSenderName: name, emailSenderAddress: companyId === "star" ? "help@star.example" : undefined } };
      },
    } as unknown as ContentClient;
    let now = 0;
    const senders = createCompanySenders(content, { now: () => now });
    expect(await senders.senderOf("star")).toEqual({ name: "Star Studio Support", address: "help@star.example" });
    name = undefined;
    now = 59_000;
    expect(await senders.senderOf("star")).toEqual({ name: "Star Studio Support", address: "help@star.example" });
    expect(calls).toBe(1);
    now = 60_001;
    expect(await senders.senderOf("star")).toEqual({ name: null, address: "help@star.example" });
    expect(await senders.senderOf("plain")).toEqual({ name: null, address: null });
    expect(calls).toBe(3);
  });
});
