import { describe, expect, it } from "vitest";
import type { Definitions } from "../tickets/field-values.ts";
import type { Ticket } from "../tickets/ticket.ts";
import type { HistoryTicket, Prediction } from "./triage.repository.ts";
import { labelledTicket, planTriage, predictionOutcome, suggestionAction, triageSchema } from "./triage.ts";

const GAME = "11111111-1111-4111-8111-111111111111";
const OTHER_GAME = "22222222-2222-4222-8222-222222222222";

const definitions: Definitions = {
  tags: [
    { gameId: null, name: "bug", ai: true },
    { gameId: null, name: "vip", ai: false },
    { gameId: OTHER_GAME, name: "farm", ai: true },
  ],
  fields: [
    { gameId: null, key: "category", type: "dropdown", options: ["technical", "billing"], ai: true },
    { gameId: null, key: "spender", type: "boolean", options: [], ai: true },
    { gameId: null, key: "note", type: "text", options: [], ai: true },
    { gameId: null, key: "level", type: "number", options: [], ai: false },
  ],
};

const ticket = { id: "t", gameId: GAME, tags: [] as string[], fields: {} } as unknown as Ticket;

describe("triageSchema", () => {
  it("predicts the AI tags of every game and the closed-set AI fields, never text or number fields", () => {
    expect(triageSchema(definitions)).toEqual({
      tags: ["bug", "farm"],
      fields: [{ key: "category", values: ["technical", "billing"] }, { key: "spender", values: ["true", "false"] }],
    });
  });
});

describe("labelledTicket", () => {
  const schema = triageSchema(definitions);
  const base: HistoryTicket = { gameId: GAME, language: "en", firstMessage: "first", messages: ["hello", "again"], tags: ["bug", "vip"], fields: { category: "billing", spender: true }, tagsChangedBy: "user", fieldChanges: [{ keys: ["category", "spender"], actor: "user" }] };

  it("learns what an agent decided last: the AI tags left and the fields they set", () => {
    expect(labelledTicket(base, schema)).toEqual({ gameId: GAME, language: "en", subject: "", messages: ["hello", "again"], tags: ["bug"], fields: { category: "billing", spender: "true" } });
  });

  it("skips values only the automation or an integration set, and a ticket without any AI tag", () => {
    const byTriage = labelledTicket({ ...base, tagsChangedBy: "system", fieldChanges: [{ keys: ["category"], actor: "user" }, { keys: ["category"], actor: "system" }] }, schema);
    expect(byTriage.tags).toBeNull();
    expect(byTriage.fields).toEqual({});
    expect(labelledTicket({ ...base, tags: ["vip"] }, schema).tags).toBeNull();
    expect(labelledTicket({ ...base, messages: [] }, schema).messages).toEqual(["first"]);
  });
});

describe("planTriage", () => {
  it("sets what is sure, suggests the rest, and leaves values the ticket has or its game cannot take", () => {
    const plan = planTriage({ ...ticket, fields: { spender: false } }, {
      tags: [
        { tag: "bug", confidence: 0.95, decision: "set", model: "company" },
        { tag: "farm", confidence: 0.97, decision: "set", model: "company" },
        { tag: "vip", confidence: 0.9, decision: "set", model: "company" },
      ],
      fields: [
        { key: "category", value: "billing", confidence: 0.7, decision: "suggest", model: "company" },
        { key: "spender", value: "true", confidence: 0.99, decision: "set", model: "company" },
      ],
    }, definitions);
    expect(plan.actions).toEqual([{ type: "addTags", tagNames: ["bug"] }]);
    expect(plan.predictions.map((p) => [p.kind, p.name, p.value, p.state])).toEqual([["tag", "bug", "bug", "set"], ["field", "category", "billing", "pending"]]);
  });

  it("writes a boolean field's value as a boolean", () => {
    const plan = planTriage(ticket, { tags: [], fields: [{ key: "spender", value: "false", confidence: 0.9, decision: "set", model: "company" }] }, definitions);
    expect(plan.actions).toEqual([{ type: "setFields", fields: { spender: false } }]);
    expect(suggestionAction({ kind: "field", name: "spender", value: "true" }, definitions, GAME)).toEqual({ type: "setFields", fields: { spender: true } });
    expect(suggestionAction({ kind: "field", name: "category", value: "gone" }, definitions, GAME)).toBeUndefined();
  });
});

describe("predictionOutcome", () => {
  type Judged = Prediction & { ticketClosed: boolean; tags: string[]; fields: Record<string, string> };
  const prediction = (over: Partial<Judged>): Judged => ({
    id: "p", ticketId: "t", kind: "tag", name: "bug", value: "bug", confidence: 0.9, decision: "set", state: "set", createdAt: new Date(), ticketClosed: false, tags: ["bug"], fields: {}, ...over,
  });

  it("judges a set value once the ticket is closed, or at once when an agent removed it", () => {
    expect(predictionOutcome(prediction({}))).toBeUndefined();
    expect(predictionOutcome(prediction({ ticketClosed: true }))).toMatchObject({ decision: "set", final: "bug" });
    expect(predictionOutcome(prediction({ tags: [] }))).toMatchObject({ decision: "set", predicted: "bug", final: null });
  });

  it("judges a suggestion when applied or dismissed, or absent once the ticket is closed", () => {
    const suggestion = { decision: "suggest" as const, state: "pending" as const, tags: [] };
    expect(predictionOutcome(prediction(suggestion))).toBeUndefined();
    expect(predictionOutcome(prediction({ ...suggestion, state: "applied", tags: ["bug"] }))).toMatchObject({ final: "bug" });
    expect(predictionOutcome(prediction({ ...suggestion, state: "dismissed" }))).toMatchObject({ final: null });
    expect(predictionOutcome(prediction({ ...suggestion, ticketClosed: true }))).toMatchObject({ final: null });
    expect(predictionOutcome(prediction({ kind: "field", name: "category", value: "billing", decision: "suggest", state: "pending", ticketClosed: true, fields: { category: "billing" } }))).toMatchObject({ final: "billing" });
  });
});
