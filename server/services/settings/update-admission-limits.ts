import "server-only";
import { UpdateAdmissionLimitsInput } from "@/lib/schemas/workspace";
import { fromZodError } from "../../errors";
import { recordAudit } from "../audit/record-audit";
import { requireRole, type ServiceContext } from "../context";
import { readRawSettings, writeSettingsKeys } from "./read-settings";

/**
 * Sets the workspace's admission limits (admin): active runs per person and per workspace, each a
 * number or `null` for the server default (SLUICE_MAX_ACTIVE_RUNS_PER_USER / _PER_WORKSPACE).
 * Admission reads them on every start and finish. The audit row carries before and after.
 */
export async function updateAdmissionLimits({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: unknown;
}) {
  const ws = requireRole(ctx, "admin");
  const parsed = UpdateAdmissionLimitsInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Admission limits");
  const after = parsed.data;
  await ctx.db.transaction(async (tx) => {
    const raw = await readRawSettings(tx, ws.id, true);
    const before = {
      maxActiveRunsPerUser: numberOrNull(raw.maxActiveRunsPerUser),
      maxActiveRunsPerWorkspace: numberOrNull(raw.maxActiveRunsPerWorkspace),
    };
    await writeSettingsKeys(tx, ws.id, raw, after);
    await recordAudit(tx, ctx, {
      action: "workspace.admission_limits_updated",
      targetType: "workspace",
      targetId: ws.id,
      data: { before, after },
    });
  });
  return admissionView(after, ctx.config);
}

function numberOrNull(v: unknown): number | null {
  return typeof v === "number" ? v : null;
}

/** What each limit is set to, the server default, and the one admission uses. */
export function admissionView(
  stored: { maxActiveRunsPerUser: unknown; maxActiveRunsPerWorkspace: unknown },
  config: { maxActiveRunsPerUser: number; maxActiveRunsPerWorkspace: number },
) {
  const one = (v: unknown, fallback: number) => {
    const set = numberOrNull(v);
    return { set, default: fallback, effective: set ?? fallback };
  };
  return {
    maxActiveRunsPerUser: one(stored.maxActiveRunsPerUser, config.maxActiveRunsPerUser),
    maxActiveRunsPerWorkspace: one(
      stored.maxActiveRunsPerWorkspace,
      config.maxActiveRunsPerWorkspace,
    ),
  };
}
