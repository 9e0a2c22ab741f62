// Routing's rules, without I/O: which agent may take a queued ticket, which one does, and in
// which order queued tickets are handed out. The service (routing.service.ts) reads the queue and
// the agents under the company's routing lock, plans with these functions and writes the plan.

/** An agent routing may assign to: signed in, available and with access to the game (content decided that). */
export interface RoutingAgent {
  userId: string;
  /** Names of the company's skill tags the agent has. */
  skills: readonly string[];
  /** Ticket languages the agent speaks; empty: every language. */
  languages: readonly string[];
  /** The most open tickets routing assigns to the agent. */
  capacity: number;
  /** The agent's open assigned tickets now, of every game of the company, however assigned. */
  openAssigned: number;
  /** When routing last assigned the agent a ticket; null: never. */
  lastAssignedAt: Date | null;
}

/** A ticket waiting for an agent: open, in `new` or `unassigned`, without an assignee. */
export interface QueuedTicket {
  id: string;
  language: string;
  /** The ticket's tags that are skill tags of the company: the agent must have every one. */
  skillTags: readonly string[];
  /** The player's tier (higher first); null: no tier, after every tier. */
  tier: number | null;
  createdAt: Date;
  /** The agent who put it back in the queue ("unassign for automatic assignment"): chosen only when no one else can take it. */
  excludedUserId: string | null;
}

export interface Assignment {
  ticketId: string;
  userId: string;
}

/** Whether the agent may take the ticket, capacity aside. */
export function canHandle(agent: Pick<RoutingAgent, "skills" | "languages">, ticket: Pick<QueuedTicket, "language" | "skillTags">): boolean {
  if (agent.languages.length > 0 && !agent.languages.includes(ticket.language)) return false;
  return ticket.skillTags.every((tag) => agent.skills.includes(tag));
}

/** The ticket's tags that name skill tags of the company, each once. */
export function skillTagsOf(tags: readonly string[], skillTags: ReadonlySet<string>): string[] {
  return [...new Set(tags.filter((tag) => skillTags.has(tag)))];
}

/** Queue order: higher tier first (no tier last), then the oldest, then by id so that every replica agrees. */
export function compareQueued(a: QueuedTicket, b: QueuedTicket): number {
  const tierA = a.tier ?? Number.NEGATIVE_INFINITY;
  const tierB = b.tier ?? Number.NEGATIVE_INFINITY;
  if (tierA !== tierB) return tierB - tierA;
  const age = a.createdAt.getTime() - b.createdAt.getTime();
  if (age !== 0) return age;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Round-robin among equals: who routing assigned longest ago (never first), then by id. */
function comparePriority(a: RoutingAgent, b: RoutingAgent): number {
  const lastA = a.lastAssignedAt?.getTime() ?? Number.NEGATIVE_INFINITY;
  const lastB = b.lastAssignedAt?.getTime() ?? Number.NEGATIVE_INFINITY;
  if (lastA !== lastB) return lastA - lastB;
  return a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0;
}

/**
 * The agent who takes the ticket: among those who can handle it and are under their capacity,
 * the one routing assigned longest ago. The agent who put the ticket back is chosen only when
 * no one else can take it (a team of one still gets its ticket back). Undefined: it waits.
 */
export function chooseAgent(ticket: QueuedTicket, agents: readonly RoutingAgent[]): RoutingAgent | undefined {
  const free = agents.filter((agent) => agent.openAssigned < agent.capacity && canHandle(agent, ticket)).sort(comparePriority);
  return free.find((agent) => agent.userId !== ticket.excludedUserId) ?? free[0];
}

/**
 * Hands out the queue in order: each ticket to the agent chooseAgent names, counting it against
 * that agent at once (their load rises, they go to the back of the round), so one plan never
 * goes beyond a capacity. Tickets no agent can take stay queued and do not block the ones after.
 */
export function planAssignments(queue: readonly QueuedTicket[], agents: readonly RoutingAgent[], now: Date): Assignment[] {
  const state = agents.map((agent) => ({ ...agent }));
  const assignments: Assignment[] = [];
  for (const ticket of [...queue].sort(compareQueued)) {
    if (!state.some((agent) => agent.openAssigned < agent.capacity)) break;
    const chosen = chooseAgent(ticket, state);
    if (!chosen) continue;
    chosen.openAssigned += 1;
    // Strictly increasing within a plan, so that the round goes on even at one clock reading.
    chosen.lastAssignedAt = new Date(now.getTime() + assignments.length);
    assignments.push({ ticketId: ticket.id, userId: chosen.userId });
  }
  return assignments;
}
