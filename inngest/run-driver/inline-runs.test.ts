/**
 * Inline runs (issue #15 item 5): an unsaved definition is validated with the workspace policy,
 * snapshotted by hash and executed by the same engine with no workflow — admitted, audited,
 * listed and rerun like any run.
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, definitionContents, quotaUsage, runs, workspaces } from "@/db/schema";
import { ForbiddenError, ValidationError } from "@/server/errors";
import { createWorkspaceFixture } from "@/server/testing/harness";
import { cancelRun } from "@/server/services/runs/cancel-run";
import { listRuns } from "@/server/services/runs/list-runs";
import { getRun } from "@/server/services/runs/get-run";
import { rerunRun } from "@/server/services/runs/rerun-run";
import { startInlineRun } from "@/server/services/runs/start-inline-run";
import { updateWorkspacePolicies } from "@/server/services/settings/update-workspace-policies";
import { startEngineHarness, type EngineHarness } from "./testing";

let e: EngineHarness;
beforeAll(async () => {
  e = await startEngineHarness("inline-runs");
});
afterAll(async () => {
  await e?.close();
});

const TERMINAL = ["completed", "failed", "cancelled", "timed_out"];

/*
 *   shape        (input n: 21 → output { n: 21, ok: true })
 */
const shaper = {
  schemaVersion: 1,
  name: "Shaper",
  inputs: { n: { type: "number", required: true } },
  steps: [{ id: "shape", type: "transform", config: { value: { n: "{{ input.n }}", ok: true } } }],
  output: "{{ steps.shape.output.data }}",
};

/** Runs counted against the workspace's runs-per-month quota (all windows). */
async function runsCharged(workspaceId: string) {
  const rows = await e.db.db
    .select({ used: quotaUsage.used })
    .from(quotaUsage)
    .where(and(eq(quotaUsage.workspaceId, workspaceId), eq(quotaUsage.metric, "runs")));
  return rows.reduce((n, r) => n + r.used, 0);
}

async function contentCount(workspaceId: string) {
  return (
    await e.db.db
      .select({ hash: definitionContents.hash })
      .from(definitionContents)
      .where(eq(definitionContents.workspaceId, workspaceId))
  ).length;
}

describe("inline runs", () => {
  it("runs an unsaved definition to completion with its output, audited, listed as inline and rerunnable", async () => {
    const r = await startInlineRun({
      ctx: e.ws.ctx("editor"),
      input: { definition: shaper, input: { n: 21 } },
    });
    const run = await e.waitFor(r.runId, TERMINAL);
    expect([run.status, run.workflowId, run.versionId, run.version]).toEqual([
      "completed",
      null,
      null,
      "inline",
    ]);
    expect(run.hash).toBe(r.hash);
    expect(run.output).toEqual({ n: 21, ok: true });

    const [audit] = await e.db.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.targetId, r.runId), eq(auditEvents.action, "run.start_inline")));
    expect(audit?.data).toMatchObject({ hash: r.hash });

    const got = await getRun({ ctx: e.ws.ctx("viewer"), input: { runId: r.runId } });
    expect([got.workflowName, got.workflowSlug]).toEqual(["inline", null]);
    expect(got.definition).toMatchObject({ name: "Shaper" });

    const listed = await listRuns({ ctx: e.ws.ctx("viewer"), input: { inline: true } });
    expect(listed.items.map((i) => [i.id, i.workflowId, i.workflowName])).toContainEqual([
      r.runId,
      null,
      "inline",
    ]);
    // Inline runs show up in the unfiltered list too (not dropped by a join on workflows).
    const all = await listRuns({ ctx: e.ws.ctx("viewer"), input: {} });
    expect(all.items.map((i) => i.id)).toContain(r.runId);

    // A rerun reuses the run's snapshot (there is no workflow with a "current" version).
    const again = await rerunRun({
      ctx: e.ws.ctx("editor"),
      input: { runId: r.runId, input: { n: 5 } },
    });
    const second = await e.waitFor(again.runId, TERMINAL);
    expect([second.status, second.workflowId, second.hash, second.output]).toEqual([
      "completed",
      null,
      r.hash,
      { n: 5, ok: true },
    ]);
    await expect(
      rerunRun({ ctx: e.ws.ctx("editor"), input: { runId: r.runId, version: "current" } }),
    ).rejects.toThrow(/inline run has no workflow/);
  });

  it("refuses an invalid definition with every issue and its path, storing nothing", async () => {
    const fx = await createWorkspaceFixture(e.db.db, "Invalid");
    const before = await contentCount(fx.workspaceId);
    const err = await startInlineRun({
      ctx: fx.ctx("editor"),
      input: {
        definition: {
          schemaVersion: 1,
          name: "Broken",
          steps: [{ id: "a", type: "transform", config: { value: 1 } }],
          edges: [{ from: "a", to: "nowhere" }],
        },
      },
    }).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(ValidationError);
    const issues = (err as ValidationError).issues;
    expect(issues.length).toBeGreaterThan(0);
    expect(issues[0]!.path?.[0]).toBe("edges");
    expect(await contentCount(fx.workspaceId)).toBe(before);
    expect(await e.db.db.select().from(runs).where(eq(runs.workspaceId, fx.workspaceId))).toEqual(
      [],
    );
    expect(await runsCharged(fx.workspaceId)).toBe(0);

    // A bad input is refused against the definition's inputs, naming the field.
    await expect(
      startInlineRun({ ctx: fx.ctx("editor"), input: { definition: shaper, input: {} } }),
    ).rejects.toMatchObject({ issues: [{ path: ["input", "n"] }] });
  });

  it("applies the workspace policy (forbidden step types) and refuses steps that need a saved workflow", async () => {
    const fx = await createWorkspaceFixture(e.db.db, "Policy");
    await updateWorkspacePolicies({
      ctx: fx.ctx("admin"),
      input: { scriptStepsEnabled: false, allowedPrivateHosts: [], forbiddenStepTypes: ["http"] },
    });
    const http = {
      schemaVersion: 1,
      name: "Fetch",
      steps: [{ id: "get", type: "http", config: { url: "https://example.com" } }],
    };
    await expect(
      startInlineRun({ ctx: fx.ctx("editor"), input: { definition: http } }),
    ).rejects.toMatchObject({
      issues: [{ code: "FORBIDDEN_STEP_TYPE", path: ["steps", 0, "type"] }],
    });
    const gate = {
      schemaVersion: 1,
      name: "Gate",
      steps: [{ id: "ok", type: "approval", config: { prompt: "Ship?" } }],
    };
    await expect(
      startInlineRun({ ctx: fx.ctx("editor"), input: { definition: gate } }),
    ).rejects.toMatchObject({
      issues: expect.arrayContaining([expect.objectContaining({ code: "NEEDS_SAVED_WORKFLOW" })]),
    });
  });

  it("is for editors: a viewer is refused", async () => {
    await expect(
      startInlineRun({ ctx: e.ws.ctx("viewer"), input: { definition: shaper, input: { n: 1 } } }),
    ).rejects.toBeInstanceOf(ForbiddenError);
  });

  it("goes through admission: over the per-user limit an inline run queues until a slot frees", async () => {
    const fx = await createWorkspaceFixture(e.db.db, "Admission");
    await e.db.db
      .update(workspaces)
      .set({ settings: { maxActiveRunsPerUser: 1 } })
      .where(eq(workspaces.id, fx.workspaceId));
    const nap = {
      schemaVersion: 1,
      name: "Nap",
      steps: [{ id: "pause", type: "delay", config: { duration: "10m" } }],
    };
    const first = await startInlineRun({ ctx: fx.ctx("editor"), input: { definition: nap } });
    await e.waitFor(first.runId, ["waiting"]);
    const second = await startInlineRun({ ctx: fx.ctx("editor"), input: { definition: nap } });
    expect(second.status).toBe("queued");
    await cancelRun({ ctx: fx.ctx("editor"), input: { runId: first.runId } });
    await e.waitFor(first.runId, ["cancelled"]);
    await e.waitFor(second.runId, ["waiting"]);
    await cancelRun({ ctx: fx.ctx("editor"), input: { runId: second.runId } });
    await e.waitFor(second.runId, ["cancelled"]);
    // Both count towards runs per month, like runs of a workflow.
    expect(await runsCharged(fx.workspaceId)).toBe(2);
  });

  it("repeats with the same idempotency key return the same run; another definition is refused", async () => {
    const ctx = e.ws.ctx("editor");
    const key = `inline-${Math.random()}`;
    const a = await startInlineRun({
      ctx,
      input: { definition: shaper, input: { n: 2 }, idempotencyKey: key },
    });
    const b = await startInlineRun({
      ctx,
      input: { definition: shaper, input: { n: 2 }, idempotencyKey: key },
    });
    expect([b.runId, b.deduplicated]).toEqual([a.runId, true]);
    await expect(
      startInlineRun({
        ctx,
        input: { definition: { ...shaper, name: "Other" }, input: { n: 2 }, idempotencyKey: key },
      }),
    ).rejects.toThrow(/idempotency/i);
    await e.waitFor(a.runId, TERMINAL);
  });
});
