/** Audit log filters <-> URL search params (a filtered view can be shared and reloaded). */
import { localDay } from "@/components/runs/runs-filters";
import { AUDIT_ACTOR_TYPES, type AuditActorType, type ListAuditInput } from "@/lib/schemas/audit";

export interface AuditFilters {
  actorType?: AuditActorType;
  actorId?: string;
  /** Exact, or a prefix ending in `*`. */
  action?: string;
  targetType?: string;
  targetId?: string;
  /** yyyy-mm-dd, inclusive, local days */
  from?: string;
  to?: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const TEXT_KEYS = ["actorId", "action", "targetType", "targetId"] as const;
const PARAM: Record<(typeof TEXT_KEYS)[number], string> = {
  actorId: "actor",
  action: "action",
  targetType: "targetType",
  targetId: "target",
};

export function auditFiltersFromParams(p: URLSearchParams): AuditFilters {
  const f: AuditFilters = {};
  const actorType = p.get("actorType") ?? "";
  if ((AUDIT_ACTOR_TYPES as readonly string[]).includes(actorType))
    f.actorType = actorType as AuditActorType;
  for (const k of TEXT_KEYS) {
    const v = p.get(PARAM[k])?.trim();
    if (v) f[k] = v.slice(0, 200);
  }
  const from = p.get("from") ?? "";
  const to = p.get("to") ?? "";
  if (DAY.test(from)) f.from = from;
  if (DAY.test(to)) f.to = to;
  return f;
}

export function auditFiltersToParams(f: AuditFilters): URLSearchParams {
  const p = new URLSearchParams();
  if (f.actorType) p.set("actorType", f.actorType);
  for (const k of TEXT_KEYS) if (f[k]) p.set(PARAM[k], f[k]);
  if (f.from) p.set("from", f.from);
  if (f.to) p.set("to", f.to);
  return p;
}

/** The `audit.list` input for the filters (`to` includes the whole local day). */
export function auditFiltersToQuery(f: AuditFilters, limit = 50): ListAuditInput {
  return {
    ...(f.actorType ? { actorType: f.actorType } : {}),
    ...(f.actorId ? { actorId: f.actorId } : {}),
    ...(f.action ? { action: f.action } : {}),
    ...(f.targetType ? { targetType: f.targetType } : {}),
    ...(f.targetId ? { targetId: f.targetId } : {}),
    ...(f.from ? { from: localDay(f.from, false) } : {}),
    ...(f.to ? { to: localDay(f.to, true) } : {}),
    limit,
  };
}

export function hasAuditFilters(f: AuditFilters): boolean {
  return Object.values(f).some(Boolean);
}
