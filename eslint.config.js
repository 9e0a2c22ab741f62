// One lint configuration for every package: typescript-eslint's recommended rules, and no import
// circles: a module never imports, directly or through others, a module that imports it (shared
// types and helpers live in a module both sides import, such as a service's context.ts).
import { importX } from "eslint-plugin-import-x";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["**/gen/**", "**/dist/**", "**/node_modules/**", "**/.data/**"] },
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
    },
  },
  {
    plugins: { "import-x": importX },
    settings: { "import-x/extensions": [".ts", ".tsx", ".js"] },
    rules: {
      // Relative imports name their file with its extension, so Node's resolution finds them; a
      // circle through another package cannot exist (packages depend on each other one way).
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
    },
  },
);
