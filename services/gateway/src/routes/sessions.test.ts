import { describe, expect, it } from "vitest";
import { sessionRequestFromQuery } from "../mappings/sessions.ts";
import type { Validated } from "../openapi/types.ts";
import { queryIssuePath, sessionUrl } from "./sessions.ts";

const TOKEN = "3f1c2a9e-8d47-4b6a-9c1e-2b7f5d0a6e11";

describe("the redirect query as session metadata", () => {
  it("reads player.*, tags (comma-separated, repeated) and fields.<key>, ignoring other parameters", () => {
    const validated: Validated<"redirectToSupportSession">["query"] = { token: TOKEN, language: "de", "player.id": "p1", "player.tier": 2, tags: ["a,b", " c ", ",,"] };
    const raw = { token: TOKEN, "fields.level": "7", "fields.server": ["eu", "us"], "fields.": "x", utm_source: "game", "player.id": "p1" };
    expect(sessionRequestFromQuery(validated, raw)).toEqual({
      token: TOKEN,
      language: "de",
      resource: undefined,
      signedMetadataToken: undefined,
      player: { id: "p1", tier: 2 },
      tags: ["a", "b", "c"],
      fields: { level: "7", server: ["eu", "us"] },
    });
  });

  it("gives no player and no fields when none are in the query", () => {
    expect(sessionRequestFromQuery({ token: TOKEN }, { token: TOKEN })).toMatchObject({ player: undefined, tags: [], fields: undefined });
  });

  it("names problems by their query parameters", () => {
    expect(queryIssuePath("/player/email")).toBe("/query/player.email");
    expect(queryIssuePath("/tags/3")).toBe("/query/tags");
    expect(queryIssuePath("/fields/a~1b")).toBe("/query/fields.a~1b");
    expect(queryIssuePath("/signedMetadataToken")).toBe("/query/signedMetadataToken");
    expect(queryIssuePath("/resource")).toBe("/query/resource");
  });
});

describe("session url", () => {
  it("adds sid to WEB_SUPPORT_URL, keeping its own query and fragment", () => {
    expect(sessionUrl("https://support.example.com/web", "c0de")).toBe("https://support.example.com/web?sid=c0de");
    expect(sessionUrl("https://support.example.com/web?brand=blue&x=1#top", "c0de")).toBe("https://support.example.com/web?brand=blue&x=1&sid=c0de#top");
    expect(sessionUrl("https://support.example.com/web?sid=old", "new")).toBe("https://support.example.com/web?sid=new");
  });
});
