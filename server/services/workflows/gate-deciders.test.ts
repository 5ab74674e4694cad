/**
 * Publishing warns (NO_OTHER_APPROVER) when only the likely initiator — the publisher — could
 * decide an approval gate: the initiator may not decide their own run unless `allowInitiator`.
 */
import { and, eq, ne } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memberships } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import { createWorkspaceFixture, type WorkspaceFixture } from "../../testing/harness";
import { createWorkflow } from "./create-workflow";
import { publishWorkflow } from "./publish-workflow";
import { saveDraft } from "./save-draft";

let t: TestDb;
let solo: WorkspaceFixture;
let team: WorkspaceFixture;
beforeAll(async () => {
  t = await createTestDb("gatedeciders");
  solo = await createWorkspaceFixture(t.db, "Solo");
  // A one-person workspace: only its owner is left.
  await t.db
    .delete(memberships)
    .where(
      and(
        eq(memberships.workspaceId, solo.workspaceId),
        ne(memberships.userId, solo.members.owner),
      ),
    );
  team = await createWorkspaceFixture(t.db, "Team");
});
afterAll(async () => {
  await t?.close();
});

async function publish(
  fx: WorkspaceFixture,
  role: "owner" | "editor",
  approval: Record<string, unknown>,
) {
  const ctx = fx.ctx(role);
  const wf = await createWorkflow({ ctx, input: { name: "Gated" } });
  await saveDraft({
    ctx,
    input: {
      workflowId: wf.id,
      definition: {
        schemaVersion: 1,
        name: "Gated",
        steps: [
          { id: "build", type: "transform", config: { value: 1 } },
          { id: "ship_it", type: "approval", config: { prompt: "Ship?", ...approval } },
        ],
      },
    },
  });
  const r = await publishWorkflow({ ctx, input: { workflowId: wf.id } });
  return r.warnings.filter((w) => w.code === "NO_OTHER_APPROVER");
}

describe("publish warns when only the initiator could decide a gate", () => {
  it("a one-person workspace: the gate names its step, the fix and where to set it", async () => {
    const warnings = await publish(solo, "owner", {});
    expect(warnings).toEqual([
      expect.objectContaining({
        severity: "warning",
        stepId: "ship_it",
        path: ["steps", 1, "config", "allowInitiator"],
        message: expect.stringMatching(
          /^Step "ship_it": no workspace member other than you can decide it, .*"allowInitiator": true/,
        ),
      }),
    ]);
    // Letting the initiator decide is the documented way out: no warning then.
    expect(await publish(solo, "owner", { allowInitiator: true })).toEqual([]);
  });

  it("a team with an approver: no warning, unless the gate lists only the publisher or needs more approvals than others can give", async () => {
    expect(await publish(team, "editor", {})).toEqual([]);
    const onlyMe = await publish(team, "editor", {
      approvers: { users: [team.members.editor] },
    });
    expect(onlyMe).toHaveLength(1);
    // Roles: approver, admin, owner can decide (3 others); a quorum of 4 cannot be reached.
    const quorum = await publish(team, "editor", { quorum: 4 });
    expect(quorum).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(
          /only 3 members other than you can decide it and it needs 4 approvals/,
        ),
      }),
    ]);
    expect(await publish(team, "editor", { quorum: 3 })).toEqual([]);
  });
});
