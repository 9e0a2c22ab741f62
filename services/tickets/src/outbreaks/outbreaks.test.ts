import { describe, expect, it } from "vitest";
import { centroid, decide, decodeVector, encodeVector, incidentTitle, outbreakVector, similarities, similarity } from "./outbreaks.ts";

const settings = { minTickets: 3, similarity: 0.6 };
const recent = (texts: string[]) => texts.map((text, index) => ({ ticketId: `t${index}`, vector: outbreakVector(text) }));

describe("outbreak rules", () => {
  it("measures alike wordings of one problem as similar and other topics as not", () => {
    const a = outbreakVector("Can't connect to the server since today's update, error 503 on login");
    const b = outbreakVector("error 503 when I try to login, can't connect to server after the update");
    const c = outbreakVector("I was charged twice for the gem pack, please refund");
    expect(similarity(a, a)).toBeCloseTo(1, 10);
    expect(similarity(a, b)).toBeGreaterThan(0.6);
    expect(similarity(a, c)).toBeLessThan(0.2);
    expect(similarity(a, b)).toBeCloseTo(similarity(b, a), 12);
  });

  it("computes many similarities at once exactly as pair by pair, and leaves its scratch space clean", () => {
    const texts = ["server error 503 can't log in", "サーバーに接続できません 503", "refund please, charged twice", "", "Der Server ist down, Fehler 503"];
    const vectors = texts.map(outbreakVector);
    for (const vector of vectors) {
      const many = similarities(vector, vectors);
      vectors.forEach((other, index) => expect(many[index]).toBeCloseTo(similarity(vector, other), 12));
    }
    // A vector sharing nothing with the previous call's sees no leftover of it.
    expect(similarities(outbreakVector("zzz qqq"), [outbreakVector("server error 503 can't log in")])).toEqual([0]);
  });

  it("opens an incident with the alike recent tickets once there are enough, the new one included", () => {
    const burst = ["server down error 503 can't log in", "can't log in, server error 503", "error 503: server down, cannot log in"];
    const noise = ["refund my gems please", "a cheater in ranked"];
    expect(decide(outbreakVector(burst[2]!), [], recent([burst[0]!, ...noise]), settings)).toEqual({ kind: "none" });
    const opened = decide(outbreakVector(burst[2]!), [], recent([burst[0]!, noise[0]!, burst[1]!, noise[1]!]), settings);
    expect(opened).toMatchObject({ kind: "open", ticketIds: ["t0", "t2"] });
  });

  it("joins the most alike open incident, and nothing without text", () => {
    const outage = { id: "outage", vector: centroid([outbreakVector("server down error 503 can't log in"), outbreakVector("can't log in, server error 503")]) };
    const refund = { id: "refund", vector: outbreakVector("refund my gems please, charged twice") };
    expect(decide(outbreakVector("error 503, server down, can't log in"), [refund, outage], [], settings)).toMatchObject({ kind: "join", incidentId: "outage" });
    expect(decide(outbreakVector("the map is blank"), [refund, outage], [], settings)).toEqual({ kind: "none" });
    expect(decide(outbreakVector("  "), [outage], [], settings)).toEqual({ kind: "none" });
  });

  it("stores a vector and reads it back within float precision", () => {
    const vector = outbreakVector("Seit dem Update stürzt das Spiel ab, Fehler 503 — ログインできません");
    const back = decodeVector(encodeVector(vector));
    expect([...back.indices]).toEqual([...vector.indices]);
    expect(similarity(back, vector)).toBeCloseTo(1, 6);
  });

  it("titles an incident with the first line, shortened", () => {
    expect(incidentTitle("  Can't   log in\r\nsince today")).toBe("Can't log in");
    expect(incidentTitle("Line one\nline two")).toBe("Line one");
    const long = incidentTitle("x".repeat(300));
    expect([...long]).toHaveLength(120);
    expect(long.endsWith("…")).toBe(true);
  });
});
