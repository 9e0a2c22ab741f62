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
  },
});
