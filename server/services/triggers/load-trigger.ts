import "server-only";
import { and, eq } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { triggers } from "@/db/schema";
import { configSchemaFor, type TriggerKind } from "@/lib/schemas/triggers";
import { scheduleIssues, DEFAULT_MIN_INTERVAL_SECONDS } from "@/lib/triggers/cron";
import { scheduleZone } from "@/lib/triggers/schedule-zone";
import { fromZodError, NotFoundError, ValidationError } from "../../errors";
import type { ServiceContext } from "../context";
import { assertScheduleInterval } from "../quotas/enforce-quotas";
import type { TriggerRow } from "./start-trigger-run";
import { workflowTimezones } from "./workflow-timezone";

/** A trigger of the workspace, or NotFound (another workspace's id looks exactly the same). */
export async function loadTrigger(
  db: Queryable,
  workspaceId: string,
  triggerId: string,
  opts: { forUpdate?: boolean } = {},
): Promise<TriggerRow> {
  const q = db
    .select()
    .from(triggers)
    .where(and(eq(triggers.id, triggerId), eq(triggers.workspaceId, workspaceId)))
    .limit(1);
  const [row] = opts.forUpdate ? await q.for("update") : await q;
  if (!row) throw new NotFoundError("Trigger", triggerId);
  return row;
}

/**
 * A kind's config, parsed with defaults filled in; schedules also get their cron checked in the
 * zone they will fire in (their own override, else `workflowTimezone`).
 */
export function parseTriggerConfig(
  ctx: ServiceContext,
  kind: TriggerKind,
  config: unknown,
  workflowTimezone: string | null = null,
): Record<string, unknown> {
  const parsed = configSchemaFor(kind).safeParse(config);
  if (!parsed.success) {
    const e = fromZodError(parsed.error, "Trigger config");
    throw new ValidationError(
      e.message,
      e.issues.map((i) => ({ ...i, path: ["config", ...(i.path ?? [])] })),
    );
  }
  const data = parsed.data as Record<string, unknown>;
  if (kind === "schedule") {
    const issues = scheduleIssues(
      String(data.cron),
      scheduleZone(data.timezone as string | undefined, workflowTimezone).timezone,
      ctx.config.scheduleMinIntervalSeconds ?? DEFAULT_MIN_INTERVAL_SECONDS,
      ctx.now(),
    );
    if (issues.length)
      throw new ValidationError(
        `Schedule is invalid: ${issues[0]!.message}`,
        issues.map((i) => ({ path: [...i.path], message: i.message })),
      );
  }
  return data;
}

/**
 * parseTriggerConfig plus the workspace's quota on schedules (the plan's minimum interval, which
 * may be stricter than the server's): what create and update save.
 */
export async function parseTriggerConfigForSave(
  db: Queryable,
  ctx: ServiceContext,
  workspaceId: string,
  workflowId: string,
  kind: TriggerKind,
  config: unknown,
): Promise<Record<string, unknown>> {
  const workflowTimezone =
    kind === "schedule"
      ? ((await workflowTimezones(db, workspaceId, [workflowId])).get(workflowId) ?? null)
      : null;
  const data = parseTriggerConfig(ctx, kind, config, workflowTimezone);
  if (kind === "schedule")
    await assertScheduleInterval(
      db,
      ctx.config,
      workspaceId,
      {
        cron: String(data.cron),
        timezone: scheduleZone(data.timezone as string | undefined, workflowTimezone).timezone,
      },
      ctx.now(),
    );
  return data;
}

/** What every API answers about a trigger: never the secret. */
export function publicTrigger(row: TriggerRow, publicUrl: string) {
  return {
    id: row.id,
    workflowId: row.workflowId,
    kind: row.kind,
    name: row.name,
    enabled: row.enabled,
    config: row.config,
    path: row.path,
    url: row.path ? `${publicUrl}/api/hooks/${row.path}` : null,
    hasPreviousSecret: !!row.previousSecret && !!row.previousSecretExpiresAt,
    previousSecretExpiresAt: row.previousSecretExpiresAt,
    lastFiredAt: row.lastFiredAt,
    lastRunId: row.lastRunId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
