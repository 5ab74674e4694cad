import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { proposeChange } from "../fixtures/proposals";
import { OWNER_STATE } from "../fixtures/users";
import { allowPrivateHost, publishWorkflow, startRun, trpcQuery } from "../fixtures/workflows";
import { ProposalReplayPanel } from "../pages/proposal-replay-page";

test.use({ storageState: OWNER_STATE });

/** A local order API that counts its calls: the replay must make none. */
let server: http.Server;
let origin = "";
let calls = 0;
test.beforeAll(async () => {
  server = http.createServer((req, res) => {
    calls += 1;
    const id = req.url?.split("/").pop() ?? "";
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ id, total: id === "o1" ? 250 : 40 }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
test.afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

const stamp = () => Date.now().toString(36);

function orders(name: string, shape: Record<string, unknown>) {
  return {
    schemaVersion: 1,
    name,
    constraints: { allowSelfModification: true },
    inputs: { id: { type: "string", required: true } },
    steps: [
      { id: "fetch", type: "http", config: { url: `${origin}/orders/{{ input.id }}` } },
      { id: "shape", type: "transform", config: { value: shape } },
    ],
    edges: [{ from: "fetch", to: "shape" }],
    output: "{{ steps.shape.output.data }}",
  };
}

test.describe("proposal replay", () => {
  let restore: () => Promise<void> = async () => {};
  test.beforeEach(async ({ request }) => {
    restore = await allowPrivateHost(request, "127.0.0.1");
  });
  test.afterEach(async () => {
    await restore();
  });

  test("a changed output formula shows each recorded run's different output, verdicts on the graph, and calls nothing", async ({
    page,
    request,
  }) => {
    test.setTimeout(120_000);
    const name = `Replayed ${stamp()}`;
    const total = "{{ steps.fetch.output.data.body.total }}";
    const workflowId = await publishWorkflow(request, orders(name, { total }));
    const runIds: string[] = [];
    for (const id of ["o1", "o2"]) {
      const runId = await startRun(request, workflowId, { id });
      await expect
        .poll(
          async () => (await trpcQuery<{ status: string }>(request, "run.get", { runId })).status,
        )
        .toBe("completed");
      runIds.push(runId);
    }
    const before = calls;
    const proposalId = await proposeChange(request, {
      workflowId,
      baseHash: "current",
      summary: `Add a currency ${stamp()}`,
      definition: orders(name, { total, currency: "EUR" }),
    });

    const panel = new ProposalReplayPanel(page);
    await panel.goto(workflowId, proposalId);
    await expect(panel.level()).toHaveText("Verified", { timeout: 60_000 });
    await expect(panel.reasons()).toContainText("2 runs replayed");
    for (const runId of runIds) {
      await expect(panel.stepRow(runId, "fetch")).toContainText("Same");
      const shape = panel.stepRow(runId, "shape");
      await expect(shape).toContainText("Different output");
      await expect(shape).toContainText('output.currency: added "EUR"');
    }
    await expect(panel.node("shape", "≠ replay: different output")).toBeVisible();
    await expect(panel.node("fetch", "= replay: same")).toBeVisible();
    // Every side effect came from the recordings: the order API saw no request.
    expect(calls).toBe(before);
  });
});
