/**
 * GET /api/v1/proposals/{id}/replay and apply's verification gate over the route handlers, on the
 * real engine: a viewer token reads the evidence, another workspace gets 404, and with the
 * policy on, apply answers 412 not_verified until an admin token gives a reason.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createApiToken } from "@/server/services/api-tokens/create-api-token";
import { createProposal } from "@/server/services/proposals/create-proposal";
import { getProposal } from "@/server/services/proposals/get-proposal";
import { reviewProposal } from "@/server/services/proposals/review-proposal";
import { updateWorkspacePolicies } from "@/server/services/settings/update-workspace-policies";
import { callRoute } from "@/server/testing/call-route";
import { createWorkspaceFixture } from "@/server/testing/harness";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";
import * as applyRoute from "./[id]/apply/route";
import * as replayRoute from "./[id]/replay/route";

let e: RunHarness;
const tokens = {} as Record<"viewer" | "editor" | "admin" | "foreign", string>;
beforeAll(async () => {
  e = await startRunHarness("proposal-replay-api");
  const other = await createWorkspaceFixture(e.db.db, "Other");
  for (const role of ["viewer", "editor", "admin"] as const)
    tokens[role] = (
      await createApiToken({ ctx: e.ws.ctx("owner"), input: { name: role, role } })
    ).token;
  tokens.foreign = (
    await createApiToken({ ctx: other.ctx("owner"), input: { name: "f", role: "owner" } })
  ).token;
});
afterAll(async () => {
  await e?.close();
});

function call(
  handler: unknown,
  method: string,
  path: string,
  id: string,
  as: keyof typeof tokens,
  body?: unknown,
) {
  return callRoute(handler, { method, path, params: { id }, token: tokens[as], body });
}

const def = (value: string) => ({
  schemaVersion: 1,
  name: "Replayed",
  constraints: { allowSelfModification: true },
  steps: [{ id: "shape", type: "transform", config: { value } }],
  output: "{{ steps.shape.output.data }}",
});

describe("/api/v1 proposal replay", () => {
  it("a viewer reads the evidence; another workspace gets 404; apply is gated by the policy", async () => {
    const wf = await e.workflow(def("a"));
    // No finished run yet: nothing replayed, so the proposal is unproven.
    const p = await createProposal({
      ctx: e.ws.ctx("editor"),
      input: { workflowId: wf, baseHash: "current", summary: "b", definition: def("b") },
    });
    await vi.waitFor(
      async () => {
        const got = await getProposal({ ctx: e.ws.ctx("viewer"), input: { proposalId: p.id } });
        if (got.dryRun.status !== "done") throw new Error(got.dryRun.status);
      },
      { timeout: 60_000, interval: 50 },
    );
    const r = await call(replayRoute.GET, "GET", `/proposals/${p.id}/replay`, p.id, "viewer");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      proposalId: p.id,
      verification: { level: "unproven", runs: 0 },
      requireVerifiedToApply: false,
      dryRun: { status: "done", runs: [] },
      shadowRuns: [],
    });
    const foreign = await call(
      replayRoute.GET,
      "GET",
      `/proposals/${p.id}/replay`,
      p.id,
      "foreign",
    );
    expect(foreign.status).toBe(404);

    await updateWorkspacePolicies({
      ctx: e.ws.ctx("admin"),
      input: {
        scriptStepsEnabled: false,
        allowedPrivateHosts: [],
        forbiddenStepTypes: [],
        requireVerifiedToApply: true,
      },
    });
    const shown = await getProposal({ ctx: e.ws.ctx("approver"), input: { proposalId: p.id } });
    await reviewProposal({
      ctx: e.ws.ctx("approver"),
      input: {
        proposalId: p.id,
        decision: "approve",
        notes: "",
        shownHash: shown.reviewedContentHash,
      },
    });
    const refused = await call(
      applyRoute.POST,
      "POST",
      `/proposals/${p.id}/apply`,
      p.id,
      "admin",
      {},
    );
    expect(refused.status, JSON.stringify(refused.body)).toBe(412);
    expect(refused.body.error.code).toBe("not_verified");
    expect(refused.body.error.message).toMatch(/unproven/);
    const tooShort = await call(
      applyRoute.POST,
      "POST",
      `/proposals/${p.id}/apply`,
      p.id,
      "admin",
      {
        overrideReason: "ok",
      },
    );
    expect(tooShort.status).toBe(400);
    const applied = await call(applyRoute.POST, "POST", `/proposals/${p.id}/apply`, p.id, "admin", {
      overrideReason: "A label change, nothing runs differently",
    });
    expect(applied.status).toBe(200);
  });
});
