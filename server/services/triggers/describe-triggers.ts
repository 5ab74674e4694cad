import "server-only";
import { ScheduleConfig } from "@/lib/schemas/triggers";
import { scheduleZone, type ScheduleZone } from "@/lib/triggers/schedule-zone";
import type { ServiceContext } from "../context";
import { publicTrigger } from "./load-trigger";
import type { TriggerRow } from "./start-trigger-run";
import { ownerViews, type OwnerView } from "./trigger-owner";
import { workflowTimezones } from "./workflow-timezone";

export type DescribedTrigger = ReturnType<typeof publicTrigger> & {
  /** Who the trigger's runs count against, and whether that person is still there. */
  owner: OwnerView;
  /** Schedules: the zone they fire in and where it comes from (their own, or the workflow's). */
  schedule: ScheduleZone | null;
};

/**
 * publicTrigger plus what the trigger pages explain: the owner (gone → the reason runs are
 * refused) and a schedule's effective zone. Two or three reads for any number of triggers of
 * the context's workspace.
 */
export async function describeTriggers(
  ctx: ServiceContext,
  rows: TriggerRow[],
): Promise<DescribedTrigger[]> {
  const workspaceId = ctx.workspace!.id;
  const owners = await ownerViews(ctx.db, rows);
  const schedules = rows.filter((r) => r.kind === "schedule");
  const zones = await workflowTimezones(
    ctx.db,
    workspaceId,
    schedules.map((r) => r.workflowId),
  );
  return rows.map((r) => {
    const config = r.kind === "schedule" ? ScheduleConfig.safeParse(r.config) : null;
    return {
      ...publicTrigger(r, ctx.config.publicUrl),
      owner: owners.get(r.id)!,
      schedule:
        r.kind === "schedule"
          ? scheduleZone(
              config?.success ? config.data.timezone : undefined,
              zones.get(r.workflowId) ?? null,
            )
          : null,
    };
  });
}
