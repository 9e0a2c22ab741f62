// Builds the support application (the agents' console) as a static bundle. It is served by the
// gateway at /app/ and every page of it is a path under /app/ (a ticket's url opens
// /app/tickets/<id>), so asset URLs are absolute under /app/ rather than relative.
import { defineConfig } from "vite";

export default defineConfig({
  base: "/app/",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  // The virtual list (virtua) is written for React: Preact's compatibility layer stands in.
  resolve: { alias: { react: "preact/compat", "react-dom": "preact/compat", "react/jsx-runtime": "preact/jsx-runtime" } },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    rollupOptions: {
      // virtua marks its modules "use client" (for React server components); nothing to keep in a bundle.
      onwarn(warning, warn) {
        if (warning.code !== "MODULE_LEVEL_DIRECTIVE") warn(warning);
      },
    },
  },
});
