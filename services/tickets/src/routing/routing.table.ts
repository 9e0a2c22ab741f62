import type { Generated } from "kysely";

/** When routing last assigned each agent a ticket: the round-robin's memory. */
export interface RoutingAgentTable {
  company_id: string;
  user_id: string;
  last_assigned_at: Generated<Date>;
}

export interface RoutingTables {
  routing_agents: RoutingAgentTable;
}
