/**
 * Issue #29 items 1–3 on the real engine: recorded runs replayed on a proposal with every side
 * effect served from its recording (a counting local HTTP server proves nothing is called),
 * shadow runs added as real runs finish, the verification level, and the apply gate.
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { auditEvents } from "@/db/schema";
import { ForbiddenError, NotFoundError } from "@/server/errors";
import { createWorkspaceFixture } from "@/server/testing/harness";
import { sendJson, startHttpServer, type LocalServer } from "@/server/testing/local-http";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";
import { updateWorkspacePolicies } from "../settings/update-workspace-policies";
import { applyProposal } from "./apply-proposal";
import { createProposal } from "./create-proposal";
import { ProposalError } from "./errors";
import { getProposal } from "./get-proposal";
import { reviewProposal } from "./review-proposal";

let e: RunHarness;
let api: LocalServer;
const totals: Record<string, number> = { o1: 250, o2: 40, o3: 120, o4: 75 };

beforeAll(async () => {
  e = await startRunHarness("replay-evidence");
  api = await startHttpServer((req, res) => {
    const id = req.url?.split("/").pop()?.split("?")[0] ?? "";
    return sendJson(res, 200, { id, total: totals[id] ?? 0 });
  });
  await policies({ requireVerifiedToApply: false });
});
afterAll(async () => {
  await api?.close();
  await e?.close();
});

function policies(extra: Record<string, unknown>) {
  return updateWorkspacePolicies({
    ctx: e.ws.ctx("admin"),
    input: {
      scriptStepsEnabled: false,
      allowedPrivateHosts: ["127.0.0.1"],
      forbiddenStepTypes: [],
      ...extra,
    },
  });
}

/** fetch (http) ──▶ shape (transform) ; output = shape's value. */
function orders(shape: unknown, query = "") {
  return {
    schemaVersion: 1,
    name: "Orders",
    constraints: { allowSelfModification: true },
    inputs: { id: { type: "string", required: true } },
    steps: [
      {
        id: "fetch",
        type: "http",
        config: { method: "GET", url: `${api.origin}/orders/{{ input.id }}${query}` },
      },
      { id: "shape", type: "transform", config: { value: shape } },
    ],
    edges: [{ from: "fetch", to: "shape" }],
    output: "{{ steps.shape.output.data }}",
  };
}
const TOTAL = "{{ steps.fetch.output.data.body.total }}";

async function run(workflowId: string, id: string) {
  const runId = await e.start(workflowId, { id });
  const row = await e.waitFor(runId, ["completed", "failed"]);
  expect(row.status, JSON.stringify(row.error)).toBe("completed");
  return runId;
}

async function propose(workflowId: string, definition: unknown) {
  const p = await createProposal({
    ctx: e.ws.ctx("editor"),
    input: { workflowId, baseHash: "current", summary: "reshape", definition },
  });
  return p.id;
}

async function whenDryRunDone(proposalId: string) {
  return vi.waitFor(
    async () => {
      const p = await getProposal({ ctx: e.ws.ctx("viewer"), input: { proposalId } });
      if (p.dryRun.status !== "done") throw new Error(`dry run ${p.dryRun.status}`);
      return p;
    },
    { timeout: 60_000, interval: 50 },
  );
}

async function approve(proposalId: string) {
  const p = await getProposal({ ctx: e.ws.ctx("approver"), input: { proposalId } });
  await reviewProposal({
    ctx: e.ws.ctx("approver"),
    input: { proposalId, decision: "approve", notes: "ok", shownHash: p.reviewedContentHash },
  });
}

describe("replay on the proposed version", () => {
  let workflowId: string;
  let recorded: string[];
  let formula: string;

  beforeAll(async () => {
    workflowId = await e.workflow(orders({ total: TOTAL }));
    recorded = [];
    for (const id of ["o1", "o2", "o3"]) recorded.push(await run(workflowId, id));
    expect(api.requests).toHaveLength(3);
  });

  it("a changed output formula: each recorded run shows its different output, and no side effect runs", async () => {
    const before = api.requests.length;
    formula = await propose(workflowId, orders({ total: TOTAL, currency: "EUR" }));
    const p = await whenDryRunDone(formula);
    expect(api.requests.length).toBe(before);
    const runs = p.dryRun.report!.runs;
    expect(runs.map((r) => r.runId).sort()).toEqual([...recorded].sort());
    for (const r of runs) {
      expect(r.outcome).toBe("different_outcome");
      expect(r.steps!.map((s) => [s.path, s.verdict])).toEqual([
        ["fetch", "same"],
        ["shape", "different_output"],
      ]);
      const total = (r.outputBefore as { total: number }).total;
      expect(r.steps![1]!.diff).toEqual([
        { op: "added", path: ["output", "currency"], after: "EUR" },
      ]);
      expect(r.outputAfter).toEqual({ total, currency: "EUR" });
    }
    expect(p.verification).toMatchObject({
      level: "verified",
      runs: 3,
      changedSteps: [{ stepId: "shape", exercised: 3 }],
      unverifiedSteps: [],
    });
  });

  it("a real run that finishes while the proposal is open is replayed as a shadow run, without a second call", async () => {
    const before = api.requests.length;
    const runId = await run(workflowId, "o4");
    const p = await vi.waitFor(
      async () => {
        const got = await getProposal({ ctx: e.ws.ctx("viewer"), input: { proposalId: formula } });
        if (got.shadowRuns.length === 0) throw new Error("no shadow run yet");
        return got;
      },
      { timeout: 60_000, interval: 50 },
    );
    // The real run called the stub once; its shadow replay called nothing.
    expect(api.requests.length).toBe(before + 1);
    expect(p.shadowRuns).toHaveLength(1);
    expect(p.shadowRuns[0]).toMatchObject({
      runId,
      outcome: "different_outcome",
      outputAfter: { total: 75, currency: "EUR" },
    });
    expect(p.shadowRuns[0]!.replayedAt).toEqual(expect.any(String));
    expect(p.verification.shadowRuns).toBe(1);
  });

  it("a changed input to a side-effecting step is unverified: its branch stops, the run cannot tell", async () => {
    const before = api.requests.length;
    const id = await propose(workflowId, orders({ total: TOTAL }, "?v=2"));
    const p = await whenDryRunDone(id);
    expect(api.requests.length).toBe(before);
    for (const r of p.dryRun.report!.runs) {
      expect(r.outcome).toBe("cannot_tell");
      const fetch = r.steps!.find((s) => s.path === "fetch")!;
      expect(fetch.verdict).toBe("unverified");
      expect(fetch.reason).toMatch(/resolved input changed/);
      expect(fetch.diff?.[0]).toMatchObject({ op: "changed", path: ["url"] });
      // The branch stopped at the unverified step: shape never ran under the proposal.
      expect(r.steps!.find((s) => s.path === "shape")).toMatchObject({
        verdict: "different_path",
        ran: "original",
      });
    }
    expect(p.verification.level).toBe("partial");
    expect(p.verification.reasons.join("\n")).toMatch(/Step "fetch" is unverified/);
  });

  it("apply is refused unless verified when the policy asks; an admin overrides with a reason, audited", async () => {
    await policies({ requireVerifiedToApply: true });
    try {
      const id = await propose(workflowId, orders({ total: TOTAL }, "?v=3"));
      await whenDryRunDone(id);
      await approve(id);
      const refused = await applyProposal({
        ctx: e.ws.ctx("editor"),
        input: { proposalId: id },
      }).catch((x: unknown) => x);
      expect(refused).toBeInstanceOf(ProposalError);
      expect((refused as ProposalError).reason).toBe("NOT_VERIFIED");
      expect((refused as Error).message).toMatch(/this one is partial/);
      const shown = await getProposal({ ctx: e.ws.ctx("editor"), input: { proposalId: id } });
      expect(shown.requireVerifiedToApply).toBe(true);
      // An editor may not override; an admin may, with a reason.
      await expect(
        applyProposal({
          ctx: e.ws.ctx("editor"),
          input: { proposalId: id, overrideReason: "The new URL is the same endpoint" },
        }),
      ).rejects.toBeInstanceOf(ForbiddenError);
      const applied = await applyProposal({
        ctx: e.ws.ctx("admin"),
        input: { proposalId: id, overrideReason: "The new URL is the same endpoint" },
      });
      expect(applied.versionId).toEqual(expect.any(String));
      const audit = await e.db.db
        .select()
        .from(auditEvents)
        .where(
          and(
            eq(auditEvents.workspaceId, e.ws.workspaceId),
            eq(auditEvents.action, "proposal.verification_overridden"),
          ),
        );
      expect(audit).toHaveLength(1);
      expect(audit[0]).toMatchObject({
        targetId: id,
        data: { level: "partial", reason: "The new URL is the same endpoint" },
      });
    } finally {
      await policies({ requireVerifiedToApply: false });
    }
  });

  it("another workspace sees none of it", async () => {
    const other = await createWorkspaceFixture(e.db.db, "Other");
    await expect(
      getProposal({ ctx: other.ctx("owner"), input: { proposalId: formula } }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });
});
