import "server-only";
import type { Queryable } from "@/db/client";
import { runEvents } from "@/db/schema";

export interface RunEventInput {
  runId: string;
  workspaceId: string;
  type: string;
  stepPath?: string | null;
  data?: Record<string, unknown>;
}

/** Appends run events (history is append-only; the live UI and audit read them). */
export async function appendRunEvents(
  tx: Queryable,
  events: RunEventInput[],
  now = new Date(),
): Promise<void> {
  if (events.length === 0) return;
  await tx.insert(runEvents).values(
    events.map((e) => ({
      runId: e.runId,
      workspaceId: e.workspaceId,
      type: e.type,
      stepPath: e.stepPath ?? null,
      data: e.data ?? {},
      createdAt: now,
    })),
  );
}
