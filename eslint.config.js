// One lint configuration for every package: typescript-eslint's recommended rules.
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
);
