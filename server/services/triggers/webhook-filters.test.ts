/**
 * Which webhook deliveries start runs, through the route adapter (signed Requests, real database,
 * the engine running the runs): a required header (`X-GitHub-Event: pull_request`) and a filter
 * condition over the delivery skip the others — answered 200 so the sender does not retry, and
 * recorded `skipped` with the reason. A mapped repository ref (a push's `after`) is pinned by the
 * run, and a delivery without a usable one is refused before any run exists.
 *
 *   delivery ─ signature ─ header match ─ parse ─ filter ─ mapping ─ repository ref ─ run
 *                              │skipped             │skipped            │422, no run
 */
import { createHmac, randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runs, triggerDeliveries } from "@/db/schema";
import { ValidationError } from "@/server/errors";
import { handleWebhook } from "@/server/http/hooks";
import { getRuntime } from "@/server/runtime";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";
import { createGitFixture, type GitFixture } from "@/server/testing/git-fixture";
import { runSampleScript } from "@/server/testing/sample-request";
import { createTrigger } from "./create-trigger";
import { getTrigger } from "./get-trigger";
import { updateTrigger } from "./update-trigger";
import { startWebhookAdmitter, type AdmitterHandle } from "./webhook-admitter";

let e: RunHarness;
let admitter: AdmitterHandle;
let repo: GitFixture;
let prWorkflow: string;

beforeAll(async () => {
  e = await startRunHarness("webhook-filters");
  admitter = startWebhookAdmitter({ db: e.db.db, ...getRuntime(), pollMs: 50 });
  repo = createGitFixture("sluice-webhook-ref-");
  prWorkflow = await e.workflow({
    schemaVersion: 1,
    name: "Merged PRs",
    inputs: { pr: { type: "number", required: true } },
    steps: [{ id: "echo", type: "transform", config: { value: "merged #{{ input.pr }}" } }],
    output: "{{ steps.echo.output.data }}",
  });
});
afterAll(async () => {
  await admitter?.stop();
  await e?.close();
  repo?.remove();
});

type Hook = { id: string; path: string; secret: string };
async function githubHook(config: Record<string, unknown>, workflowId = prWorkflow): Promise<Hook> {
  const r = await createTrigger({
    ctx: e.ws.ctx("editor"),
    input: {
      kind: "webhook",
      workflowId,
      name: "GitHub",
      config: { verification: { preset: "github" }, ...config },
    },
  });
  return { id: r.trigger.id, path: r.trigger.path!, secret: r.secret! };
}

/** A delivery signed as GitHub signs it. */
function deliver(h: Hook, payload: unknown, event = "pull_request"): Promise<Response> {
  const body = JSON.stringify(payload);
  const req = new Request(`http://localhost/api/hooks/${h.path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": event,
      "x-github-delivery": randomUUID(),
      "x-hub-signature-256": `sha256=${createHmac("sha256", h.secret).update(body).digest("hex")}`,
    },
    body,
  });
  return handleWebhook(req, { params: Promise.resolve({ path: [h.path] }) });
}

const deliveriesOf = async (triggerId: string) => {
  await admitter.drain();
  return e.db.db
    .select()
    .from(triggerDeliveries)
    .where(eq(triggerDeliveries.triggerId, triggerId))
    .orderBy(triggerDeliveries.receivedAt);
};
const runsOf = async (triggerId: string) => {
  await admitter.drain();
  return e.db.db
    .select()
    .from(runs)
    .where(and(eq(runs.triggerType, "webhook"), eq(runs.triggerId, triggerId)));
};

const merged = {
  all: [
    { ref: "trigger.body.action", eq: "closed" },
    { ref: "trigger.body.pull_request.merged", eq: true },
  ],
};
const pr = (action: string, isMerged: boolean, number = 7) => ({
  action,
  number,
  pull_request: { merged: isMerged },
});

describe("webhook header match and filter", () => {
  it("skips a delivery whose X-GitHub-Event is not the required one: 200, recorded with the reason, no run", async () => {
    const h = await githubHook({
      requireHeaders: { "X-GitHub-Event": "pull_request" },
      mapping: { pr: "$.number" },
    });
    const push = await deliver(h, { ref: "refs/heads/main" }, "push");
    expect(push.status).toBe(200);
    const answer = await push.json();
    expect(answer).toMatchObject({
      skipped: true,
      reason: 'header X-GitHub-Event is "push", needs "pull_request"',
    });

    const ok = await deliver(h, pr("opened", false, 3));
    expect(ok.status).toBe(202);
    const { runId } = await ok.json();
    expect((await e.waitFor(runId, ["completed", "failed"])).output).toBe("merged #3");

    const rows = await deliveriesOf(h.id);
    expect(rows.map((r) => [r.status, r.httpStatus, r.reason])).toEqual([
      ["skipped", 200, 'header X-GitHub-Event is "push", needs "pull_request"'],
      ["accepted", 202, null],
    ]);
    expect(rows[0]!.id).toBe(answer.deliveryId);
    expect(await runsOf(h.id)).toHaveLength(1);
  });

  it("starts a run only for a merged pull request; other actions are skipped with the filter's reason", async () => {
    const h = await githubHook({ filter: merged, mapping: { pr: "$.number" } });
    const opened = await deliver(h, pr("opened", false));
    expect(opened.status).toBe(200);
    expect(await opened.json()).toMatchObject({
      skipped: true,
      reason: 'filter: trigger.body.action is "opened", needs "closed"',
    });
    // Closed without merging: the second part of the condition explains the skip.
    const closed = await deliver(h, pr("closed", false));
    expect(closed.status).toBe(200);

    const done = await deliver(h, pr("closed", true, 12));
    expect(done.status).toBe(202);
    const { runId } = await done.json();
    expect((await e.waitFor(runId, ["completed", "failed"])).output).toBe("merged #12");

    const rows = await deliveriesOf(h.id);
    expect(rows.map((r) => [r.status, r.reason])).toEqual([
      ["skipped", 'filter: trigger.body.action is "opened", needs "closed"'],
      ["skipped", "filter: trigger.body.pull_request.merged is false, needs true"],
      ["accepted", null],
    ]);
    expect((await runsOf(h.id)).map((r) => r.id)).toEqual([runId]);
  });

  it("a filter can read headers; a skipped delivery is skipped in sync mode too", async () => {
    const h = await githubHook({
      mode: "sync",
      filter: {
        ref: "trigger.headers.x-github-event",
        in: ["pull_request", "pull_request_review"],
      },
      mapping: { pr: "$.number" },
    });
    const skipped = await deliver(h, pr("closed", true), "issues");
    expect(skipped.status).toBe(200);
    expect(await skipped.json()).toMatchObject({
      skipped: true,
      reason:
        'filter: trigger.headers.x-github-event is "issues", needs one of ["pull_request","pull_request_review"]',
    });
    const ran = await deliver(h, pr("closed", true, 5));
    expect(ran.status).toBe(200);
    expect(await ran.json()).toMatchObject({ status: "completed", output: "merged #5" });
  });

  it("refuses configs it cannot apply, naming the field", async () => {
    const refusal = async (config: Record<string, unknown>) => {
      const err = await githubHook(config).catch((x: unknown) => x);
      expect(err).toBeInstanceOf(ValidationError);
      return (err as ValidationError).issues.map((i) => [(i.path ?? []).join("."), i.message]);
    };
    expect(await refusal({ filter: { ref: "body.action", eq: "closed" } })).toEqual([
      [
        "config.filter.ref",
        'Unknown reference root "body" in "body.action": a webhook filter reads the delivery as trigger.body.…, trigger.headers.…, trigger.query.… or trigger.method',
      ],
    ]);
    expect(await refusal({ filter: { ref: "input.pr", gt: 1 } })).toEqual([
      [
        "config.filter.ref",
        '"input" does not exist before the run starts: a webhook filter reads the delivery as trigger.body.…, trigger.headers.…, trigger.query.… or trigger.method',
      ],
    ]);
    expect(await refusal({ filter: { ref: "trigger.body.action", is: "closed" } })).toEqual([
      [
        "config.filter.is",
        'Unknown condition key "is"; operators are eq, neq, gt, gte, lt, lte, in, contains, exists, matches, combinators all, any, not',
      ],
    ]);
    expect(
      await refusal({ requireHeaders: { "X-GitHub-Event": "push", "x-github-event": "pr" } }),
    ).toEqual([
      [
        "config.requireHeaders.x-github-event",
        '"x-github-event" repeats "X-GitHub-Event": header names are case-insensitive',
      ],
    ]);
    expect(await refusal({ requireHeaders: { "X GitHub": "push" } })).toEqual([
      [
        "config.requireHeaders.X GitHub",
        '"X GitHub" is not an HTTP header name (letters, digits and dashes)',
      ],
    ]);
    expect(await refusal({ repositoryRef: "{{ body.after }}" })).toEqual([
      ["config.repositoryRef", "a source such as $.order.id, query.name or header.x-request-id"],
    ]);
  });

  it("an edit that adds a filter applies to the next delivery", async () => {
    const h = await githubHook({ mapping: { pr: "$.number" } });
    expect((await deliver(h, pr("opened", false))).status).toBe(202);
    await updateTrigger({
      ctx: e.ws.ctx("editor"),
      input: {
        triggerId: h.id,
        config: { verification: { preset: "github" }, mapping: { pr: "$.number" }, filter: merged },
      },
    });
    const after = await deliver(h, pr("opened", false));
    expect(after.status).toBe(200);
    expect((await after.json()).skipped).toBe(true);
    expect(await runsOf(h.id)).toHaveLength(1);
  });
});

describe("repository ref from the delivery", () => {
  const shas: string[] = [];
  let repoWorkflow: string;
  beforeAll(async () => {
    shas.push(repo.commit("VERSION", "v1\n"), repo.commit("VERSION", "v2\n"));
    repoWorkflow = await e.workflow({
      schemaVersion: 1,
      name: "Built commits",
      repository: { url: `file://${repo.origin}`, ref: "main" },
      steps: [{ id: "n", type: "transform", config: { value: "built" } }],
    });
  });

  it("a push's after SHA becomes the run's ref and is pinned, not the definition's main", async () => {
    const h = await githubHook({ repositoryRef: "$.after" }, repoWorkflow);
    const res = await deliver(h, { ref: "refs/heads/main", after: shas[0] }, "push");
    expect(res.status).toBe(202);
    const { runId } = await res.json();
    const run = await e.waitFor(runId, ["completed", "failed"]);
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    expect(run).toMatchObject({ repositoryRef: shas[0], repositorySha: shas[0] });
    expect(await e.events(runId)).toContain("run.repository_pinned");
    expect((await deliveriesOf(h.id)).map((d) => [d.status, d.runId])).toEqual([
      ["accepted", runId],
    ]);
  });

  it("a missing, non-string or unsafe ref is refused with the reason and starts nothing", async () => {
    const h = await githubHook({ repositoryRef: "$.after" }, repoWorkflow);
    const cases: [unknown, string, string][] = [
      [
        { ref: "refs/heads/main" },
        "repository_ref_missing",
        "The repository ref is missing from the request (repository ← $.after)",
      ],
      [
        { after: 42 },
        "invalid_repository_ref",
        "The repository ref at $.after must be a string, got a number",
      ],
      [
        { after: "--upload-pack=touch /tmp/x" },
        "invalid_repository_ref",
        'The repository ref at $.after is invalid: The ref "--upload-pack=touch /tmp/x" must not start with "-".',
      ],
    ];
    for (const [payload, code, message] of cases) {
      const res = await deliver(h, payload, "push");
      expect(res.status).toBe(422);
      expect((await res.json()).error).toMatchObject({ code, message });
    }
    const rows = await deliveriesOf(h.id);
    expect(rows.map((r) => [r.status, r.httpStatus, r.reason])).toEqual(
      cases.map(([, , message]) => ["rejected", 422, message]),
    );
    expect(await runsOf(h.id)).toHaveLength(0);
  });

  it("a ref for a workflow without a repository is refused (422, recorded failed), no run", async () => {
    const h = await githubHook({ repositoryRef: "$.after", mapping: { pr: "$.number" } });
    const res = await deliver(h, { after: shas[1], number: 1 }, "push");
    expect(res.status).toBe(422);
    expect((await res.json()).error.message).toMatch(/declares no repository/);
    expect((await deliveriesOf(h.id)).map((d) => d.status)).toEqual(["failed"]);
    expect(await runsOf(h.id)).toHaveLength(0);
  });

  it("the shown sample sends the required header and a ref, and starts a run as pasted", async () => {
    const h = await githubHook(
      { requireHeaders: { "X-GitHub-Event": "push" }, repositoryRef: "$.after" },
      repoWorkflow,
    );
    const shown = await getTrigger({ ctx: e.ws.ctx("viewer"), input: { triggerId: h.id } });
    const sent = runSampleScript(shown.sample!.replace("<your webhook secret>", h.secret));
    const res = await handleWebhook(
      new Request(`http://localhost${new URL(sent.url).pathname}`, {
        method: sent.method,
        headers: sent.headers,
        body: sent.body,
      }),
      { params: Promise.resolve({ path: [h.path] }) },
    );
    expect(res.status, await res.clone().text()).toBe(202);
    const run = await e.waitFor((await res.json()).runId, ["completed", "failed"]);
    expect(run).toMatchObject({
      status: "completed",
      repositoryRef: "main",
      repositorySha: shas[1],
    });
  });

  it("a ref that does not exist in the repository fails the run at its pin, as a caller's would", async () => {
    const h = await githubHook({ repositoryRef: "$.after" }, repoWorkflow);
    const res = await deliver(h, { after: "no-such-branch" }, "push");
    expect(res.status).toBe(202);
    const run = await e.waitFor((await res.json()).runId, ["completed", "failed"]);
    expect(run.status).toBe("failed");
    expect(JSON.stringify(run.error)).toMatch(/no-such-branch/);
  });
});
