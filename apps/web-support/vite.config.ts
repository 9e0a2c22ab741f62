// Builds the web support page as a static bundle with relative asset URLs, so dist/ can be
// served by the gateway at /support/ or from any static host or CDN.
import { defineConfig } from "vite";

export default defineConfig({
  base: "./",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    // One small script and one stylesheet: no module preload polyfill (it would be inline-free
    // anyway, but it is dead weight for the browsers a strict CSP page targets).
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    rolldownOptions: {
      output: {
        // The articles' Markdown renderer, loaded beside the session (src/markdown.ts), by a name
        // that says what it is (the bundle test counts it).
        chunkFileNames: (chunk) => (chunk.facadeModuleId?.includes("/article-markdown/") ? "assets/article-markdown-[hash].js" : "assets/[name]-[hash].js"),
      },
    },
  },
});
