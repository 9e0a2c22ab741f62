// The page a survey link opens: the question with the five scores (the one of the link chosen),
// an optional comment and a button; after sending, the thanks. Plain HTML with no script (the
// gateway serves it under a CSP that allows none) and its stylesheet, in the ticket's language.
import { textsFor } from "../mails/mail-texts.ts";

export type RatingPageState =
  | { kind: "form"; chosen: number | undefined; problem: boolean; review: string }
  | { kind: "thanks"; score: number }
  | { kind: "already"; score: number }
  | { kind: "invalid" };

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** The stylesheet, served beside the page (`/support/rate.css`). */
export const RATING_PAGE_CSS = `
:root { color-scheme: light; font-family: system-ui, sans-serif; color: #1b1f24; background: #f3f5f8; }
body { margin: 0; }
main { max-width: 34rem; margin: 2rem auto; padding: 1.5rem; background: #fff; border: 1px solid #c5ccd6; border-radius: 0.5rem; }
h1 { font-size: 1.35rem; margin: 0 0 1rem; }
fieldset { border: 0; padding: 0; margin: 0 0 1rem; }
legend { font-weight: 600; margin-block-end: 0.5rem; }
.scores label { display: block; padding: 0.4rem 0.5rem; border-radius: 0.3rem; }
.scores input { margin-inline-end: 0.5rem; }
label.comment { display: block; font-weight: 600; margin-block-end: 0.25rem; }
textarea { width: 100%; box-sizing: border-box; min-height: 6rem; font: inherit; padding: 0.4rem; border: 1px solid #4f5661; border-radius: 0.3rem; }
button { margin-top: 1rem; font: inherit; font-weight: 600; color: #fff; background: #1d4ed8; border: 0; border-radius: 0.4rem; padding: 0.6rem 1.1rem; cursor: pointer; }
:focus-visible { outline: 3px solid #b45309; outline-offset: 2px; }
.problem { color: #b42318; font-weight: 600; }
@media (max-width: 36rem) { main { margin: 1rem; } }
`.trim();

export function renderRatingPage(link: { language: string; gameName: string; runningId: number } | undefined, state: RatingPageState): string {
  const { language, texts } = textsFor(link?.language ?? "en");
  const title = link ? texts.pageTitle(link.gameName) : texts.pageInvalid;
  let body: string;
  if (state.kind === "invalid" || !link) {
    body = `<h1>${escapeHtml(texts.pageInvalid)}</h1>`;
  } else if (state.kind === "thanks") {
    body = `<h1>${escapeHtml(title)}</h1><p role="status">${escapeHtml(texts.pageThanks(state.score))}</p>`;
  } else if (state.kind === "already") {
    body = `<h1>${escapeHtml(title)}</h1><p role="status">${escapeHtml(texts.pageAlreadyRated(state.score))}</p>`;
  } else {
    const scores = texts.scores
      .map((label, index) => {
        const score = index + 1;
        const checked = state.chosen === score ? " checked" : "";
        return `<label><input type="radio" name="score" value="${score}"${checked} required>${escapeHtml(label)}</label>`;
      })
      .join("");
    const problem = state.problem ? `<p class="problem" id="problem" role="alert">${escapeHtml(texts.pageChooseScore)}</p>` : "";
    body =
      `<h1>${escapeHtml(title)}</h1>` +
      `<form method="post">` +
      `<fieldset class="scores"${state.problem ? ' aria-describedby="problem"' : ""}><legend>${escapeHtml(texts.pageQuestion(link.runningId))}</legend>${problem}${scores}</fieldset>` +
      `<label class="comment" for="review">${escapeHtml(texts.pageComment)}</label>` +
      `<textarea id="review" name="review" maxlength="10000">${escapeHtml(state.review)}</textarea>` +
      `<button type="submit">${escapeHtml(texts.pageSubmit)}</button>` +
      `</form>`;
  }
  return (
    `<!doctype html><html lang="${escapeHtml(language)}"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title>` +
    `<link rel="stylesheet" href="../rate.css"></head><body><main>${body}</main></body></html>`
  );
}
