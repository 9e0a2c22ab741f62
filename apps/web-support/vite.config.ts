// Builds the web support page as a static bundle with relative asset URLs, so dist/ can be
// served by the gateway at /support/ or from any static host or CDN.
import { defineConfig, type Plugin } from "vite";
import { ALIASES } from "./src/catalog-aliases.ts";

/**
 * Writes dist/catalogs.json: for each language tag (lower case) with a catalog chunk of its own,
 * the chunk's file, aliases included ("zh" → the zh-Hans chunk). The gateway, serving the page
 * for a session, preloads the session language's chunk with the page (a tag not listed falls
 * back to its base language, then to English, which is in the entry script): the catalog
 * arrives beside the script instead of after it.
 */
function catalogFiles(): Plugin {
  return {
    name: "catalog-files",
    generateBundle(_options, bundle) {
      const files: Record<string, string> = {};
      for (const output of Object.values(bundle)) {
        const language = output.type === "chunk" ? /\/src\/messages\/([^/]+)\.ts$/.exec(output.facadeModuleId ?? "")?.[1] : undefined;
        if (language && language !== "en") files[language.toLowerCase()] = output.fileName;
      }
      for (const [alias, language] of Object.entries(ALIASES)) {
        const file = files[language.toLowerCase()];
        if (file) files[alias] = file;
      }
      this.emitFile({ type: "asset", fileName: "catalogs.json", source: `${JSON.stringify(files, null, 2)}\n` });
    },
  };
}

export default defineConfig({
  base: "./",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  plugins: [catalogFiles()],
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
