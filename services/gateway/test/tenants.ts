// Tenant files for the integration tests (the format of content's `pnpm admin apply`).

export const tenantA = {
  company: { name: "Alpha Studio", primaryLanguage: "en" },
  apiKeys: [{ name: "main" }, { name: "second" }],
  games: [
    {
      ref: "galaxy",
      name: "Galaxy Raiders",
      slug: "galaxy-raiders",
      languages: ["en", "fr", "de"],
      environments: [
        { ref: "galaxy-production", name: "production", announcement: { shortContent: "Environment override", longContent: "Only in production" } },
        { ref: "galaxy-staging", name: "staging" },
      ],
    },
    { ref: "farm", name: "Pixel Farm", slug: "pixel-farm", languages: ["en", "es"], environments: [{ ref: "farm-production", name: "production" }] },
    { ref: "racer", name: "Turbo Racer", slug: "turbo-racer", languages: ["en"], environments: [{ ref: "racer-production", name: "production" }] },
  ],
  tags: [
    { name: "bug", game: null, description: "Something does not work" },
    { name: "vip", game: null, isAiTag: true },
    { name: "crash", game: "galaxy", description: "The client crashed", isSkill: true },
  ],
  fields: [
    { key: "level", name: "Player level", type: "number", game: null },
    { key: "ship_class", name: "Ship class", type: "dropdown", game: "galaxy", description: "Ship flown", options: ["fighter", "explorer"], isAiField: true },
  ],
};

export const tenantB = {
  company: { name: "Beta Games", primaryLanguage: "de" },
  apiKeys: [{ name: "main" }],
  games: [{ ref: "castle", name: "Castle Siege", slug: "castle-siege", languages: ["de", "en"], environments: [{ ref: "castle-production", name: "production" }] }],
  tags: [{ name: "beta-only", game: "castle" }],
  fields: [{ key: "beta_field", name: "Beta field", type: "text", game: null }],
};
