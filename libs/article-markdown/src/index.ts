export { renderMarkdown } from "./article-markdown.ts";
