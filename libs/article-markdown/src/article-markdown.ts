// Help articles' bodies are Markdown written by the game team: rendered by marked with raw HTML
// escaped (shown as text, never parsed), then every tag and attribute outside a small
// allow-list is removed by DOMPurify before it reaches the DOM. No images (they would be
// third-party requests) and no raw HTML survives.
import DOMPurify from "dompurify";
import { Marked } from "marked";

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  // Raw HTML in the Markdown (block or inline) is text, like markdown-it's html: false.
  renderer: { html: ({ text }) => escapeHtml(text) },
});

const ALLOWED_TAGS = ["p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "del", "code", "pre", "blockquote", "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td"];

let hooked = false;

export function renderMarkdown(markdown: string): string {
  if (!hooked) {
    // Links leave the page in a new tab, without telling the target where they came from.
    DOMPurify.addHook("afterSanitizeAttributes", (node) => {
      if (node.tagName === "A") {
        node.setAttribute("target", "_blank");
        node.setAttribute("rel", "noopener noreferrer");
      }
    });
    hooked = true;
  }
  const html = marked.parse(markdown) as string;
  return DOMPurify.sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR: ["href", "title", "align"],
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|#)/i,
  });
}
