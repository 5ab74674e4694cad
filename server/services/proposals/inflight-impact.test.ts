import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspaceFixture, type WorkspaceFixture } from "@/server/testing/harness";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";
import { createTrigger } from "../triggers/create-trigger";
import { setTriggerEnabled } from "../triggers/set-trigger-enabled";
import { createProposal } from "./create-proposal";
import { getInflightImpact } from "./get-inflight-impact";

let e: RunHarness;
let other: WorkspaceFixture;
beforeAll(async () => {
  e = await startRunHarness("inflight");
  other = await createWorkspaceFixture(e.db.db, "Other");
});
afterAll(async () => {
  await e?.close();
});

const gated = (value: string) => ({
  schemaVersion: 1,
  name: "Gated",
  constraints: { allowSelfModification: true },
  steps: [
    { id: "ask", type: "approval", config: { prompt: "Go?" } },
    { id: "ship", type: "transform", config: { value } },
  ],
  edges: [{ from: "ask", port: "approved", to: "ship" }],
});

describe("getInflightImpact", () => {
  it("lists the runs waiting on the base version and the triggers that will start the new one", async () => {
    const wf = await e.workflow(gated("v1"));
    const waiting = await e.start(wf);
    await e.pendingApproval(waiting);
    const second = await e.start(wf);
    await e.pendingApproval(second);
    const editor = e.ws.ctx("editor");
    const hook = await createTrigger({
      ctx: editor,
      input: {
        kind: "webhook",
        workflowId: wf,
        name: "Hook",
        config: { verification: { preset: "none" }, idempotency: "none" },
      },
    });
    await createTrigger({
      ctx: editor,
      input: {
        kind: "schedule",
        workflowId: wf,
        name: "Morning",
        config: { cron: "0 9 * * *", overlap: "allow" },
      },
    });
    await createTrigger({
      ctx: editor,
      input: { kind: "event", workflowId: wf, name: "Orders", config: { event: "order.*" } },
    });
    const off = await createTrigger({
      ctx: editor,
      input: { kind: "event", workflowId: wf, name: "Off", config: { event: "off" } },
    });
    await setTriggerEnabled({ ctx: editor, input: { triggerId: off.trigger.id, enabled: false } });
    const proposal = await createProposal({
      ctx: editor,
      input: { workflowId: wf, baseHash: "current", summary: "v2", definition: gated("v2") },
    });

    const impact = await getInflightImpact({
      ctx: e.ws.ctx("viewer"),
      input: { proposalId: proposal.id },
    });
    expect(impact.inFlight).toMatchObject({ total: 2, truncated: false, onOtherVersions: 0 });
    expect(impact.inFlight.runs.map((r) => [r.id, r.status])).toEqual([
      [waiting, "waiting"],
      [second, "waiting"],
    ]);
    expect(impact.inFlight.note).toMatch(/keep their pinned version/);
    expect(impact.triggers.map((t) => [t.kind, t.name])).toEqual([
      ["event", "Orders"],
      ["schedule", "Morning"],
      ["webhook", "Hook"],
    ]);
    expect(impact.triggers[0]!.event).toBe("order.*");
    expect(impact.triggers[1]!.schedule).toMatchObject({ cron: "0 9 * * *", timezone: "UTC" });
    expect(impact.triggers[1]!.schedule!.nextAt).toMatch(/T09:00:00/);
    expect(impact.triggers[2]!.url).toContain(`/api/hooks/${hook.trigger.path}`);
  });

  it("is not found from another workspace", async () => {
    const wf = await e.workflow(gated("x"));
    const proposal = await createProposal({
      ctx: e.ws.ctx("editor"),
      input: { workflowId: wf, baseHash: "current", summary: "y", definition: gated("y") },
    });
    await expect(
      getInflightImpact({ ctx: other.ctx("owner"), input: { proposalId: proposal.id } }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
