// The one tenant every scenario applies (the format of `pnpm admin apply`), and a stack with it.
import type { LoadTarget } from "./load.ts";
import { FaultStack } from "./stack.ts";

export const tenant = {
  company: { name: "Fault Studio", primaryLanguage: "en" },
  apiKeys: [{ name: "load" }],
  games: [
    {
      ref: "galaxy",
      name: "Galaxy Raiders",
      slug: "galaxy-raiders",
      languages: ["en"],
      environments: [{ ref: "galaxy-production", name: "production" }],
    },
  ],
  tags: [{ name: "bug", game: null, description: "Something does not work" }],
  fields: [{ key: "level", name: "Player level", type: "number", game: null }],
};

/** Starts a fault stack, applies the tenant and answers where the load goes. */
export async function startScenario(gatewayEnv: Record<string, string> = {}): Promise<{ stack: FaultStack; target: LoadTarget }> {
  const stack = await FaultStack.start(gatewayEnv);
  try {
    const applied = await stack.applyTenant(tenant);
    return {
      stack,
      target: { gateway: stack.gateway, key: applied.apiKeys.load!, companyId: applied.companyId, gameId: applied.games.galaxy!.id },
    };
  } catch (error) {
    await stack.stop();
    throw error;
  }
}
