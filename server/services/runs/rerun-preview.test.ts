import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { updateWorkspacePolicies } from "@/server/services/settings/update-workspace-policies";
import { sendJson, startHttpServer, type LocalServer } from "@/server/testing/local-http";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";
import { previewRerun } from "./preview-rerun";
import { NEW_RUN_ID } from "./rerun-idempotency";
import { rerunRun } from "./rerun-run";

let e: RunHarness;
let api: LocalServer;
/** The Idempotency-Key of every request the local receiver got, by URL path. */
const received: { path: string; key: string | null }[] = [];

beforeAll(async () => {
  e = await startRunHarness("rerun-preview");
  api = await startHttpServer((req, res) => {
    received.push({
      path: req.url ?? "",
      key: (req.headers["idempotency-key"] as string | undefined) ?? null,
    });
    return sendJson(res, 200, { ok: true });
  });
  await updateWorkspacePolicies({
    ctx: e.ws.ctx("admin"),
    input: {
      scriptStepsEnabled: false,
      allowedPrivateHosts: ["127.0.0.1"],
      forbiddenStepTypes: [],
    },
  });
});
afterAll(async () => {
  await api?.close();
  await e?.close();
});

describe("rerun preview: idempotency keys", () => {
  it("lists each repeating side effect with the key it would send and the key the original sent", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Keys",
      steps: [
        { id: "charge", type: "http", config: { method: "POST", url: `${api.origin}/charge` } },
        {
          id: "fixed",
          type: "http",
          config: {
            method: "POST",
            url: `${api.origin}/fixed`,
            headers: { "Idempotency-Key": "order-42" },
          },
        },
        { id: "announce", type: "emit_event", config: { event: "keys.test", data: {} } },
        { id: "last", type: "transform", config: { value: 1 } },
      ],
    });
    const original = await e.waitFor(await e.start(wf), ["completed", "failed"]);
    expect(original.status, JSON.stringify(original.error)).toBe("completed");
    const sentCharge = received.find((r) => r.path === "/charge")!.key;

    // A viewer may look at what a rerun would do…
    const preview = await previewRerun({ ctx: e.ws.ctx("viewer"), input: { runId: original.id } });
    const byId = Object.fromEntries(preview.rerun.map((s) => [s.stepId, s]));
    expect(byId.charge!.idempotency).toMatchObject({
      key: `${NEW_RUN_ID}:charge:1`,
      source: "engine",
      sentAs: "Idempotency-Key header",
      originalKey: sentCharge,
      repeatsOriginal: false,
    });
    expect(byId.fixed!.idempotency).toMatchObject({
      key: "order-42",
      source: "step_config",
      originalKey: "order-42",
      repeatsOriginal: true,
    });
    expect(byId.announce!.idempotency).toMatchObject({ key: null, source: "none" });
    expect(byId.last).not.toHaveProperty("idempotency");

    // …but rerunning needs an editor.
    await expect(
      rerunRun({ ctx: e.ws.ctx("viewer"), input: { runId: original.id } }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
    const r = await rerunRun({ ctx: e.ws.ctx("editor"), input: { runId: original.id } });
    await e.waitFor(r.runId, ["completed", "failed"]);
    // The keys the rerun actually sent are the ones the preview announced.
    const keys = received.map((x) => `${x.path} ${x.key}`);
    expect(keys).toContain(
      `/charge ${byId.charge!.idempotency!.key!.replace(NEW_RUN_ID, r.runId)}`,
    );
    expect(keys.filter((k) => k === "/fixed order-42")).toHaveLength(2);
  });

  it("keys only the steps a rerun from a step repeats", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "From step",
      steps: [
        { id: "first", type: "transform", config: { value: 1 } },
        { id: "call", type: "http", config: { method: "POST", url: `${api.origin}/call` } },
      ],
    });
    const original = await e.waitFor(await e.start(wf), ["completed"]);
    const preview = await previewRerun({
      ctx: e.ws.ctx("viewer"),
      input: { runId: original.id, fromStepId: "call" },
    });
    expect(preview).toMatchObject({ fromStepId: "call", reused: ["first"] });
    expect(preview.rerun.map((s) => [s.stepId, s.idempotency?.originalKey])).toEqual([
      ["call", `${original.rootRunId}:call:1`],
    ]);
  });
});
