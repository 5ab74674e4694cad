import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alerts } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import { applyRetention } from "@/server/services/retention/apply-retention";
import { createWorkspaceFixture, type WorkspaceFixture } from "@/server/testing/harness";

let t: TestDb;
let ws: WorkspaceFixture;
beforeAll(async () => {
  t = await createTestDb();
  ws = await createWorkspaceFixture(t.db, "Alert retention");
});
afterAll(async () => {
  await t?.close();
});

const DAY = 86_400_000;

describe("alert retention", () => {
  it("prunes alert occurrences older than the run retention and keeps recent ones", async () => {
    const now = new Date("2026-11-28T12:00:00Z");
    const row = (id: string, ageDays: number) => ({
      id,
      workspaceId: ws.workspaceId,
      kind: "run_failed" as const,
      subjectId: "wf_x",
      workflowId: "wf_x",
      occurrenceKey: id,
      status: "suppressed" as const,
      summary: "Run failed",
      createdAt: new Date(now.getTime() - ageDays * DAY),
    });
    await t.db.insert(alerts).values([row("alr_old", 31), row("alr_recent", 2)]);
    await applyRetention(t.db, now, { runs: 30, steps: 30 });
    const left = await t.db
      .select({ id: alerts.id })
      .from(alerts)
      .where(eq(alerts.workspaceId, ws.workspaceId));
    expect(left.map((r) => r.id)).toEqual(["alr_recent"]);
  });
});
