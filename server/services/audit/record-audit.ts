import "server-only";
import type { Queryable } from "@/db/client";
import { auditEvents } from "@/db/schema";
import { auditActor, type ServiceContext } from "../context";
import { chainHistory } from "../history/chain-history";

export interface AuditEntry {
  action: string;
  targetType?: string;
  targetId?: string;
  data?: Record<string, unknown>;
  workspaceId?: string | null;
}

/** Appends one audit row (and its history-chain link); call it inside the transaction of the change it records. */
export async function recordAudit(
  tx: Queryable,
  ctx: ServiceContext,
  entry: AuditEntry,
): Promise<void> {
  const workspaceId =
    entry.workspaceId === undefined ? (ctx.workspace?.id ?? null) : entry.workspaceId;
  const [row] = await tx
    .insert(auditEvents)
    .values({
      workspaceId,
      ...auditActor(ctx),
      action: entry.action,
      targetType: entry.targetType ?? null,
      targetId: entry.targetId ?? null,
      data: entry.data ?? {},
      // Every row written while serving a request says where it came from.
      clientAddress: ctx.client?.address ?? null,
      userAgent: ctx.client?.userAgent ?? null,
      createdAt: ctx.now(),
    })
    .returning({ id: auditEvents.id });
  await chainHistory(tx, [{ workspaceId, kind: "audit", rowId: String(row!.id) }]);
}
