// Saved views: a user's own lists of the support application, a name over a search (`q`) and,
// optionally, one of the built-in views. They belong to one user: nobody else sees them.
import { validationError, type ValidationIssue } from "@support/errors";
import { AGENT_VIEWS, type AgentView } from "../tickets/agent-list.ts";

export interface SavedView {
  id: string;
  companyId: string;
  userId: string;
  name: string;
  q: string;
  view: AgentView | null;
  createdAt: Date;
}

export type SavedViewValues = Pick<SavedView, "name" | "q" | "view">;

/** The most views one user keeps. */
export const MAX_SAVED_VIEWS = 30;
const MAX_NAME = 60;
const MAX_Q = 200;

export function parseSavedView(input: { name: string; q: string; view: string }): SavedViewValues {
  const issues: ValidationIssue[] = [];
  const name = input.name.trim();
  if (name === "" || name.length > MAX_NAME) issues.push({ path: "/name", message: `must be 1 to ${MAX_NAME} characters` });
  const q = input.q.trim();
  if (q.length > MAX_Q) issues.push({ path: "/q", message: `must be at most ${MAX_Q} characters` });
  const view = input.view === "" ? null : input.view;
  if (view !== null && !(AGENT_VIEWS as readonly string[]).includes(view)) issues.push({ path: "/view", message: `must be one of ${AGENT_VIEWS.join(", ")}` });
  // A view of nothing would list every ticket: a saved view narrows by words or by a view.
  if (q === "" && view === null && issues.length === 0) issues.push({ path: "/q", message: "a saved view needs words to search or a view" });
  if (issues.length > 0) throw validationError(issues);
  return { name, q, view: view as AgentView | null };
}
