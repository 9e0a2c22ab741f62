// tickets.v1.TicketsAdminService (the operators' admin tool, tenant files) mapped onto the
// automation's use cases: the file's rules, SLA settings, triage threshold and outbreak settings
// of one company. Every call needs the admin token (ADMIN_TOKEN): the gate refuses it before the
// body is read. All sections are checked first (every problem named by its path, nothing
// written), then applied in one transaction.
import type { ConnectRouter } from "@connectrpc/connect";
import { isAppError, isUuid, validationError, type ValidationIssue } from "@support/errors";
import { TicketsAdminService } from "@support/proto";
import { adminTokenGate } from "@support/rpc";
import type { TicketsContext } from "./context.ts";
import { applyFileOutbreakSettings, fileOutbreakSettings } from "./outbreaks/outbreaks.service.ts";
import type { OutbreakSettings } from "./outbreaks/outbreaks.ts";
import { applyFileRules, checkFileRules } from "./rules/rule.service.ts";
import type { RuleDefinition } from "./rules/rule.ts";
import { parseSlaSettings } from "./sla/sla-settings.ts";
import { applyFileSla } from "./sla/sla.service.ts";
import type { SlaSettings } from "./sla/sla.ts";
import { applyFileThreshold } from "./triage/triage.service.ts";

const SECTIONS = new Set(["rules", "sla", "triage", "outbreaks"]);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

interface Checked {
  rules?: RuleDefinition[];
  sla?: SlaSettings;
  threshold?: number;
  outbreaks?: OutbreakSettings;
}

/** Checks every section the request has; throws one VALIDATION_ERROR naming every problem. */
async function checkAutomation(ctx: TicketsContext, companyId: string, automation: Record<string, unknown>): Promise<Checked> {
  const issues: ValidationIssue[] = [];
  const checked: Checked = {};
  for (const key of Object.keys(automation)) if (!SECTIONS.has(key)) issues.push({ path: `/${key}`, message: "is not a section of the tickets service" });
  if (automation.rules !== undefined) {
    const rules = await checkFileRules(ctx, companyId, automation.rules);
    issues.push(...rules.issues);
    checked.rules = rules.rules;
  }
  if (automation.sla !== undefined) {
    try {
      checked.sla = parseSlaSettings(automation.sla);
    } catch (error) {
      const found = isAppError(error) ? error.details?.issues : undefined;
      if (!found) throw error;
      issues.push(...found.map((issue) => ({ path: `/sla${issue.path}`, message: issue.message })));
    }
  }
  if (automation.triage !== undefined) {
    const threshold = isObject(automation.triage) ? automation.triage.threshold : undefined;
    if (typeof threshold !== "number" || !Number.isFinite(threshold) || threshold < 0.5 || threshold > 1) {
      issues.push({ path: "/triage/threshold", message: "must be a number from 0.5 to 1" });
    } else checked.threshold = threshold;
  }
  if (automation.outbreaks !== undefined) {
    if (!isObject(automation.outbreaks)) issues.push({ path: "/outbreaks", message: "must be an object" });
    else {
      const given = automation.outbreaks;
      const typed: Partial<OutbreakSettings> = {};
      for (const [key, value] of Object.entries(given)) {
        if (key === "enabled") {
          if (typeof value === "boolean") typed.enabled = value;
          else issues.push({ path: "/outbreaks/enabled", message: "must be a boolean" });
        } else if (key === "minTickets" || key === "windowMinutes" || key === "similarity") {
          if (typeof value === "number") typed[key] = value;
          else issues.push({ path: `/outbreaks/${key}`, message: "must be a number" });
        } else issues.push({ path: `/outbreaks/${key}`, message: "is not an outbreak setting" });
      }
      const merged = await fileOutbreakSettings(ctx, companyId, typed);
      issues.push(...merged.issues);
      checked.outbreaks = merged.settings;
    }
  }
  if (issues.length > 0) throw validationError(issues);
  return checked;
}

export function registerAdminRoutes(router: ConnectRouter, ctx: TicketsContext, adminToken: string): void {
  router.service(
    TicketsAdminService,
    {
      applyAutomation: async (req) => {
        if (!isUuid(req.companyId)) throw validationError([{ path: "/companyId", message: "must be a UUID" }]);
        const companyId = req.companyId.toLowerCase();
        const automation = (req.automation ?? {}) as Record<string, unknown>;
        const checked = await checkAutomation(ctx, companyId, automation);
        return ctx.db.transaction().execute(async (trx) => {
          const local = { ...ctx, db: trx };
          const rules = checked.rules ? await applyFileRules(local, companyId, checked.rules) : [];
          const settings: { section: string; action: string }[] = [];
          if (checked.sla) settings.push({ section: "sla", action: await applyFileSla(local, companyId, checked.sla) });
          if (checked.threshold !== undefined) settings.push({ section: "triage", action: await applyFileThreshold(local, companyId, checked.threshold) });
          if (checked.outbreaks) settings.push({ section: "outbreaks", action: await applyFileOutbreakSettings(local, companyId, checked.outbreaks) });
          return { rules, settings };
        });
      },
    },
    { requestGate: adminTokenGate(adminToken) },
  );
}
