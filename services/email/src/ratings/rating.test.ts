import { describe, expect, it } from "vitest";
import { renderRatingPage } from "./rating-page.ts";
import { hashRatingToken, isRatingToken, linkExpired, newRatingToken, ratingLink } from "./rating.ts";

describe("survey links", () => {
  it("are unguessable tokens, kept as their SHA-256, on the web support page's address", () => {
    const token = newRatingToken();
    expect(isRatingToken(token)).toBe(true);
    expect(hashRatingToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashRatingToken(token)).not.toContain(token);
    expect(ratingLink("https://help.studio.example/support/", token, 4)).toBe(`https://help.studio.example/support/rate/${token}?score=4`);
    expect(ratingLink("https://help.studio.example/support", token, 1)).toBe(`https://help.studio.example/support/rate/${token}?score=1`);
    expect(isRatingToken("../etc/passwd")).toBe(false);
  });

  it("expire after 30 days", () => {
    const created = new Date("2026-11-01T00:00:00Z");
    expect(linkExpired(created, new Date("2026-11-30T23:00:00Z"))).toBe(false);
    expect(linkExpired(created, new Date("2026-12-02T00:00:00Z"))).toBe(true);
  });
});

describe("the rating page", () => {
  const link = { language: "fr", gameName: "<Raiders>", runningId: 7 };

  it("asks in the ticket's language with the link's score chosen, and escapes what it shows", () => {
    const html = renderRatingPage(link, { kind: "form", chosen: 2, problem: false, review: "</textarea><script>x</script>" });
    expect(html).toContain('<html lang="fr">');
    expect(html).toContain("Évaluez votre échange avec le support de &lt;Raiders&gt;");
    expect(html).toMatch(/value="2" checked/);
    expect(html.match(/checked/g)).toHaveLength(1);
    expect(html).not.toContain("<script>");
    expect(html).toContain('<form method="post">');
  });

  it("says what is missing, thanks, an earlier rating, or that the link is not valid", () => {
    expect(renderRatingPage(link, { kind: "form", chosen: undefined, problem: true, review: "" })).toContain('role="alert">Choisissez une note de 1 à 5.');
    expect(renderRatingPage(link, { kind: "thanks", score: 5 })).toContain("Merci ! Vous avez donné la note de 5 sur 5.");
    expect(renderRatingPage(link, { kind: "already", score: 3 })).toContain("déjà été noté 3 sur 5");
    expect(renderRatingPage(undefined, { kind: "invalid" })).toContain("This rating link is not valid (any more).");
  });
});
