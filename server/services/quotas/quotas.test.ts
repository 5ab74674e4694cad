/**
 * Workspace quotas on a real database (PGlite and Postgres): the plan/limit settings (members
 * read, admins change, audited), and every enforcement point — runs per month under concurrent
 * starts, definitions per workspace, the schedule interval on save, concurrent runs per workflow
 * at admission, webhook requests per minute and the month's runs at webhook accept, LLM tokens per
 * step and per workflow per month through the real llm handler and the local fake OpenAI server —
 * and the error shape each transport answers (429 + Retry-After / 403, naming the limit).
 */
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { and, eq } from "drizzle-orm";
import superjson from "superjson";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, quotaUsage, runs, triggerDeliveries, workflows } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import { agentHandler } from "@/server/services/step-execution/actions/agent";
import { llmHandler } from "@/server/services/step-execution/actions/llm";
import { failureOf, makeActionContext } from "@/server/services/step-execution/actions/testing";
import { createLogger } from "@/lib/log";
import { AgentConfig, LlmConfig } from "@/lib/workflow/steps";
import { ForbiddenError, QuotaExceededError, ValidationError } from "../../errors";
import { domainErrorResponse } from "../../http/api";
import { startFakeOpenAi, type FakeOpenAi } from "../../testing/fake-openai";
import {
  createWorkspaceFixture,
  testConfig,
  testKeys,
  type WorkspaceFixture,
} from "../../testing/harness";
import { responseMeta } from "../../trpc/init";
import { appRouter } from "../../trpc/root";
import type { ServiceContext } from "../context";
import { startRun } from "../runs/start-run";
import { createTrigger } from "../triggers/create-trigger";
import { receiveWebhook } from "../triggers/receive-webhook";
import { updateTrigger } from "../triggers/update-trigger";
import { createWorkflow } from "../workflows/create-workflow";
import { deleteWorkflow } from "../workflows/delete-workflow";
import { publishWorkflow } from "../workflows/publish-workflow";
import { saveDraft } from "../workflows/save-draft";
import { syncWorkflows } from "../workflows/sync-workflows";
import { llmBudget } from "./enforce-quotas";
import { getQuotaUsage } from "./get-quota-usage";
import { updateWorkspaceQuota } from "./update-workspace-quota";

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb("quotas");
});
afterAll(async () => {
  await t?.close();
});

/** The last minute of November 2026: the month's quotas reset at the next full minute. */
const LATE_NOVEMBER = new Date("2026-11-30T23:59:10Z");
const at = (ctx: ServiceContext, now: Date): ServiceContext => ({ ...ctx, now: () => now });

async function workspace(
  label: string,
  overrides: Record<string, number | null> = {},
  plan: string | null = null,
) {
  const fx = await createWorkspaceFixture(t.db, label);
  await updateWorkspaceQuota({ ctx: fx.ctx("admin"), input: { plan, overrides } });
  return fx;
}

async function publishedWorkflow(fx: WorkspaceFixture, constraints: Record<string, unknown> = {}) {
  const ctx = fx.ctx("editor");
  const wf = await createWorkflow({ ctx, input: { name: `W ${Math.random()}` } });
  const definition = {
    schemaVersion: 1,
    name: "W",
    constraints,
    steps: [{ id: "s", type: "transform", config: { value: 1 } }],
  };
  await saveDraft({ ctx, input: { workflowId: wf.id, definition } });
  await publishWorkflow({ ctx, input: { workflowId: wf.id } });
  return wf.id;
}

async function quotaError(p: Promise<unknown>): Promise<QuotaExceededError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(QuotaExceededError);
  return e as QuotaExceededError;
}

describe("plans and limits (Settings → Quotas)", () => {
  it("a workspace without a plan uses the server default: enterprise (unlimited) unless configured", async () => {
    const fx = await createWorkspaceFixture(t.db, "Default");
    const view = await getQuotaUsage({ ctx: fx.ctx("viewer") });
    expect(view).toMatchObject({ plan: "enterprise", planSource: "default", canEdit: false });
    expect(Object.values(view.limits).every((v) => v === null)).toBe(true);

    const free = await getQuotaUsage({
      ctx: { ...fx.ctx("viewer"), config: { ...testConfig, defaultPlan: "free" } },
    });
    expect(free).toMatchObject({ plan: "free", planSource: "default", defaultPlan: "free" });
    expect(free.limits).toMatchObject({ runsPerMonth: 1000, definitionsPerWorkspace: 10 });
  });

  it("admins set the plan and overrides (audited in the same transaction); every member reads them; others are refused", async () => {
    const fx = await createWorkspaceFixture(t.db, "PlanEdit");
    await expect(
      updateWorkspaceQuota({ ctx: fx.ctx("editor"), input: { plan: "pro", overrides: {} } }),
    ).rejects.toBeInstanceOf(ForbiddenError);
    await expect(
      updateWorkspaceQuota({
        ctx: fx.ctx("admin"),
        input: { plan: "pro", overrides: { runsPerMonth: 0 } },
      }),
    ).rejects.toBeInstanceOf(ValidationError);

    const view = await updateWorkspaceQuota({
      ctx: fx.ctx("admin"),
      input: { plan: "pro", overrides: { runsPerMonth: 7, stepsPerRun: null } },
    });
    expect(view).toMatchObject({ plan: "pro", planSource: "workspace" });
    expect(view.limits).toMatchObject({
      runsPerMonth: 7,
      stepsPerRun: null,
      definitionsPerWorkspace: 200,
    });
    expect((await getQuotaUsage({ ctx: fx.ctx("viewer") })).limits).toEqual(view.limits);

    const audits = await t.db
      .select()
      .from(auditEvents)
      .where(
        and(
          eq(auditEvents.workspaceId, fx.workspaceId),
          eq(auditEvents.action, "workspace.quota_updated"),
        ),
      );
    expect(audits.at(-1)?.data).toEqual({
      before: {},
      after: { plan: "pro", overrides: { runsPerMonth: 7, stepsPerRun: null } },
    });

    // Back to the server default: the stored key is removed.
    const reset = await updateWorkspaceQuota({
      ctx: fx.ctx("owner"),
      input: { plan: null, overrides: {} },
    });
    expect(reset).toMatchObject({ plan: "enterprise", planSource: "default" });
  });
});

describe("runs per month", () => {
  it("10 concurrent starts at a limit of 4: exactly 4 runs exist, 6 are refused with 429 naming the limit and the reset", async () => {
    const fx = await workspace("RunsMonth", { runsPerMonth: 4 });
    const workflowId = await publishedWorkflow(fx);
    const ctx = at(fx.ctx("editor"), LATE_NOVEMBER);
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () => startRun({ ctx, input: { workflowId } })),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(4);
    const refused = results.flatMap((r) => (r.status === "rejected" ? [r.reason] : []));
    expect(refused).toHaveLength(6);
    for (const e of refused) {
      expect(e).toBeInstanceOf(QuotaExceededError);
      expect(e.code).toBe("RATE_LIMITED");
      expect(e.message).toBe(
        'Quota "Runs per month" reached: 4 of 4 runs used; resets 2026-12-01T00:00:00Z',
      );
      expect(e.details).toMatchObject({
        quota: "runsPerMonth",
        limit: 4,
        resetsAt: "2026-12-01T00:00:00.000Z",
        retryAfterSeconds: 50,
      });
    }
    const rows = await t.db.select().from(runs).where(eq(runs.workspaceId, fx.workspaceId));
    expect(rows).toHaveLength(4);
    const meter = (await getQuotaUsage({ ctx })).meters.find((m) => m.key === "runsPerMonth");
    expect(meter).toEqual({
      key: "runsPerMonth",
      used: 4,
      limit: 4,
      resetsAt: "2026-12-01T00:00:00.000Z",
    });

    // A new calendar month (UTC) starts from zero.
    const december = at(fx.ctx("editor"), new Date("2026-12-01T00:00:05Z"));
    await expect(startRun({ ctx: december, input: { workflowId } })).resolves.toMatchObject({
      deduplicated: false,
    });
  });

  it("a repeated idempotency key returns the run without counting it again", async () => {
    const fx = await workspace("RunsIdem", { runsPerMonth: 1 });
    const workflowId = await publishedWorkflow(fx);
    const ctx = fx.ctx("editor");
    const first = await startRun({ ctx, input: { workflowId, idempotencyKey: "k-1" } });
    const again = await startRun({ ctx, input: { workflowId, idempotencyKey: "k-1" } });
    expect(again).toMatchObject({ runId: first.runId, deduplicated: true });
    await quotaError(startRun({ ctx, input: { workflowId, idempotencyKey: "k-2" } }));
  });
});

describe("definitions per workspace", () => {
  it("concurrent creates never pass the limit; the refusal is a 403 naming it; deleting one frees a slot", async () => {
    const fx = await workspace("Defs", { definitionsPerWorkspace: 3 });
    const ctx = fx.ctx("editor");
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, (_, i) => createWorkflow({ ctx, input: { name: `Def ${i}` } })),
    );
    const created = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    expect(created).toHaveLength(3);
    for (const r of results) {
      if (r.status === "fulfilled") continue;
      const e = r.reason as QuotaExceededError;
      expect(e).toBeInstanceOf(QuotaExceededError);
      expect(e.code).toBe("QUOTA_EXCEEDED");
      expect(e.message).toBe(
        'Quota "Workflow definitions per workspace" reached: 3 of 3 workflows used; ask a workspace admin to change the plan or limit in Settings → Quotas',
      );
    }
    await deleteWorkflow({
      ctx,
      input: { workflowId: created[0]!.id, confirmName: created[0]!.name },
    });
    await expect(createWorkflow({ ctx, input: { name: "After delete" } })).resolves.toBeTruthy();
    const live = await t.db
      .select()
      .from(workflows)
      .where(eq(workflows.workspaceId, fx.workspaceId));
    expect(live.filter((w) => !w.deletedAt)).toHaveLength(3);
  });
});

describe("definitions per workspace (declarative sync)", () => {
  it("a sync that would create past the limit creates nothing and names the quota", async () => {
    const fx = await workspace("DefsSync", { definitionsPerWorkspace: 2 });
    const def = (slug: string) => ({
      slug,
      schemaVersion: 1,
      name: slug,
      steps: [{ id: "s", type: "transform", config: { value: 1 } }],
    });
    const e = await quotaError(
      syncWorkflows({
        ctx: fx.ctx("editor"),
        input: { workflows: [def("one"), def("two"), def("three")] },
      }),
    );
    expect(e.message).toContain('Quota "Workflow definitions per workspace" reached: 2 of 2');
    const rows = await t.db
      .select()
      .from(workflows)
      .where(eq(workflows.workspaceId, fx.workspaceId));
    expect(rows).toHaveLength(0);
  });
});

describe("minimum schedule interval", () => {
  it("a schedule firing more often than the plan allows is refused on create and update (403); at the minimum it saves", async () => {
    const fx = await workspace("Cron", {}, "free");
    const workflowId = await publishedWorkflow(fx);
    const ctx = fx.ctx("editor");
    const e = await quotaError(
      createTrigger({
        ctx,
        input: { kind: "schedule", workflowId, name: "Often", config: { cron: "*/5 * * * *" } },
      }),
    );
    expect(e.code).toBe("QUOTA_EXCEEDED");
    expect(e.message).toBe(
      'Quota "Minimum schedule interval" reached: the limit is 900 seconds (Free plan); "*/5 * * * *" fires every 300 s at its most frequent; ask a workspace admin to change the plan or limit in Settings → Quotas',
    );
    const ok = await createTrigger({
      ctx,
      input: {
        kind: "schedule",
        workflowId,
        name: "Quarterly hour",
        config: { cron: "*/15 * * * *" },
      },
    });
    await quotaError(
      updateTrigger({
        ctx,
        input: { triggerId: ok.trigger.id, config: { cron: "* * * * *" } },
      }),
    );
  });
});

describe("concurrent runs per workflow", () => {
  it("caps every definition's maxConcurrentRuns at the plan's limit: the rest queue", async () => {
    const capped = await workspace("PerDef", { concurrentRunsPerDefinition: 1 });
    const open = await workspace("PerDefOpen");
    for (const [fx, running] of [
      [capped, 1],
      [open, 3],
    ] as const) {
      const workflowId = await publishedWorkflow(fx, { maxConcurrentRuns: 10 });
      const statuses: string[] = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await startRun({ ctx: fx.ctx("editor"), input: { workflowId } })).status);
      expect(statuses.filter((s) => s === "running")).toHaveLength(running);
      expect(statuses.filter((s) => s === "queued")).toHaveLength(3 - running);
    }
  });
});

describe("webhooks", () => {
  const deps = (now: Date) => ({
    db: t.db,
    keys: testKeys,
    config: testConfig,
    log: createLogger({ test: "quotas" }),
    now: () => now,
  });
  const post = (path: string) => ({
    method: "POST",
    path,
    headers: new Headers({ "content-type": "application/json" }),
    query: new URLSearchParams(),
    readBody: async () => Buffer.from("{}"),
  });
  async function hook(fx: WorkspaceFixture, workflowId: string) {
    const r = await createTrigger({
      ctx: fx.ctx("editor"),
      input: {
        kind: "webhook",
        workflowId,
        name: "Hook",
        config: { verification: { preset: "none" }, rateLimit: { perMinute: 1000, burst: 1000 } },
      },
    });
    return r.trigger;
  }

  it("webhook requests per minute count every trigger of the workspace: past the limit → 429 with Retry-After until the next minute", async () => {
    const fx = await workspace("HookRate", { webhookRequestsPerMinute: 3 });
    const workflowId = await publishedWorkflow(fx);
    const [a, b] = [await hook(fx, workflowId), await hook(fx, workflowId)];
    const now = new Date("2026-11-24T10:00:45Z");
    const answers = [];
    for (const path of [a.path!, a.path!, b.path!, b.path!])
      answers.push(await receiveWebhook(deps(now), post(path)));
    expect(answers.map((r) => r.status)).toEqual([202, 202, 202, 429]);
    expect(answers[3]).toMatchObject({
      headers: { "retry-after": "15" },
      body: {
        error: {
          code: "quota_exceeded",
          message:
            'Quota "Webhook requests per minute" reached: 3 of 3 requests used; resets 2026-11-24T10:01:00Z',
        },
      },
    });
    const [refused] = await t.db
      .select()
      .from(triggerDeliveries)
      .where(
        and(eq(triggerDeliveries.triggerId, b.id!), eq(triggerDeliveries.status, "rate_limited")),
      );
    expect(refused?.httpStatus).toBe(429);
    // The next minute starts from zero (and the old minute's counter row is pruned).
    const later = await receiveWebhook(deps(new Date("2026-11-24T10:01:00Z")), post(a.path!));
    expect(later.status).toBe(202);
    const rows = await t.db
      .select()
      .from(quotaUsage)
      .where(
        and(eq(quotaUsage.workspaceId, fx.workspaceId), eq(quotaUsage.metric, "webhook_requests")),
      );
    expect(rows.map((r) => r.used)).toEqual([1]);
  });

  it("a month without runs left refuses the delivery at accept (429 naming runs per month), not after queueing it", async () => {
    const fx = await workspace("HookRuns", { runsPerMonth: 1 });
    const workflowId = await publishedWorkflow(fx);
    await startRun({ ctx: at(fx.ctx("editor"), LATE_NOVEMBER), input: { workflowId } });
    const h = await hook(fx, workflowId);
    const answer = await receiveWebhook(deps(LATE_NOVEMBER), post(h.path!));
    expect(answer.status).toBe(429);
    expect(answer.headers).toEqual({ "retry-after": "50" });
    expect(answer.body).toMatchObject({
      error: {
        code: "quota_exceeded",
        message: 'Quota "Runs per month" reached: 1 of 1 runs used; resets 2026-12-01T00:00:00Z',
      },
    });
  });
});

describe("LLM tokens", () => {
  let openai: FakeOpenAi;
  beforeAll(async () => {
    openai = await startFakeOpenAi(() => ({ content: "ok", usage: [300, 100] }));
  });
  afterAll(async () => {
    await openai?.close();
  });
  const llmCtx = async (workspaceId: string, workflowId: string, now: Date, maxTokens?: number) =>
    makeActionContext(
      LlmConfig,
      { prompt: "Hi", json: false, ...(maxTokens ? { maxTokens } : {}) },
      {
        workspaceId,
        workflowId,
        policy: {
          scriptStepsEnabled: false,
          allowedPrivateHosts: ["127.0.0.1"],
          forbiddenStepTypes: [],
        },
        llm: { baseUrl: openai.baseUrl, model: "fake" },
        llmBudget: await llmBudget(t.db, testConfig, { workspaceId, workflowId }, () => now),
      },
    );

  it("per step: the request's max_tokens is capped at the limit, and a call that used more fails the step naming it", async () => {
    const fx = await workspace("TokStep", { llmTokensPerStep: 350 });
    const workflowId = await publishedWorkflow(fx);
    const before = openai.bodies.length;
    const f = await failureOf(
      llmHandler(await llmCtx(fx.workspaceId, workflowId, LATE_NOVEMBER, 2000)),
    );
    expect(openai.bodies[before]?.max_tokens).toBe(350);
    expect(f.failureClass).toBe("user");
    expect(f.message).toBe(
      'Quota "LLM tokens per step" reached: 400 of 350 tokens used; ask a workspace admin to change the plan or limit in Settings → Quotas',
    );
    expect(f.details).toMatchObject({ quota: "llmTokensPerStep", limit: 350 });
  });

  it("agent steps call the model under the same budget: capped per step and counted", async () => {
    const fx = await workspace("TokAgent", { llmTokensPerStep: 500 });
    const workflowId = await publishedWorkflow(fx);
    const before = openai.bodies.length;
    const ctx = makeActionContext(
      AgentConfig,
      { goal: "Say ok", maxIterations: 2 },
      {
        workspaceId: fx.workspaceId,
        workflowId,
        policy: {
          scriptStepsEnabled: false,
          allowedPrivateHosts: ["127.0.0.1"],
          forbiddenStepTypes: [],
        },
        llm: { baseUrl: openai.baseUrl, model: "fake" },
        llmBudget: await llmBudget(
          t.db,
          testConfig,
          { workspaceId: fx.workspaceId, workflowId },
          () => LATE_NOVEMBER,
        ),
      },
    );
    await expect(agentHandler(ctx)).resolves.toMatchObject({ data: "ok" });
    expect(openai.bodies[before]?.max_tokens).toBe(500);
    const usage = await getQuotaUsage({ ctx: at(fx.ctx("viewer"), LATE_NOVEMBER) });
    expect(usage.llmByWorkflow).toEqual([expect.objectContaining({ workflowId, used: 400 })]);
  });

  it("per workflow per month: tokens are counted per workflow; once spent, the next call is refused before it is sent", async () => {
    const fx = await workspace("TokMonth", { llmTokensPerWorkflowPerMonth: 1000 });
    const [w1, w2] = [await publishedWorkflow(fx), await publishedWorkflow(fx)];
    for (let i = 0; i < 3; i++) await llmHandler(await llmCtx(fx.workspaceId, w1, LATE_NOVEMBER)); // 3 × 400 tokens
    const sent = openai.bodies.length;
    const f = await failureOf(llmHandler(await llmCtx(fx.workspaceId, w1, LATE_NOVEMBER)));
    expect(openai.bodies.length).toBe(sent);
    expect(f.failureClass).toBe("user");
    expect(f.message).toBe(
      'Quota "LLM tokens per workflow per month" reached: 1200 of 1000 tokens used; resets 2026-12-01T00:00:00Z',
    );
    // Another workflow has its own month.
    await expect(llmHandler(await llmCtx(fx.workspaceId, w2, LATE_NOVEMBER))).resolves.toBeTruthy();
    const usage = await getQuotaUsage({ ctx: at(fx.ctx("viewer"), LATE_NOVEMBER) });
    expect(usage.llmByWorkflow).toEqual([
      expect.objectContaining({ workflowId: w1, used: 1200 }),
      expect.objectContaining({ workflowId: w2, used: 400 }),
    ]);
  });
});

describe("error shape over the transports", () => {
  it("HTTP: 429 with Retry-After for a quota that resets, 403 for a standing cap; both name the limit", async () => {
    const month = new QuotaExceededError("runsPerMonth", "Quota reached", {
      limit: 4,
      used: 4,
      resetsAt: new Date("2026-12-01T00:00:00Z"),
      now: LATE_NOVEMBER,
    });
    const r = domainErrorResponse(month);
    expect(r.status).toBe(429);
    expect(r.headers.get("retry-after")).toBe("50");
    expect(await r.json()).toMatchObject({
      error: {
        code: "rate_limited",
        details: { quota: "runsPerMonth", limit: 4, resetsAt: "2026-12-01T00:00:00.000Z" },
      },
    });
    const cap = domainErrorResponse(
      new QuotaExceededError("definitionsPerWorkspace", "Quota reached", { limit: 3, used: 3 }),
    );
    expect(cap.status).toBe(403);
    expect(cap.headers.get("retry-after")).toBeNull();
    expect(await cap.json()).toMatchObject({
      error: { code: "quota_exceeded", details: { quota: "definitionsPerWorkspace", limit: 3 } },
    });
  });

  it("tRPC: run.start past the month's runs answers 429 TOO_MANY_REQUESTS with Retry-After and the quota in data", async () => {
    const fx = await workspace("TrpcShape", { runsPerMonth: 1, definitionsPerWorkspace: 1 });
    const workflowId = await publishedWorkflow(fx);
    const ctx = at(fx.ctx("editor"), LATE_NOVEMBER);
    const call = (path: string, input: unknown) =>
      fetchRequestHandler({
        endpoint: "/api/trpc",
        req: new Request(`http://localhost/api/trpc/${path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(superjson.serialize(input)),
        }),
        router: appRouter,
        createContext: () => ({ svc: ctx }),
        responseMeta,
      });
    expect((await call("run.start", { workflowId })).status).toBe(200);
    const limited = await call("run.start", { workflowId });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("50");
    const body = (await limited.json()) as { error: { json: { message: string; data: unknown } } };
    expect(body.error.json.message).toContain('Quota "Runs per month" reached');
    expect(body.error.json.data).toMatchObject({
      code: "TOO_MANY_REQUESTS",
      httpStatus: 429,
      domainCode: "RATE_LIMITED",
      reason: "quota_exceeded",
      quota: "runsPerMonth",
      resetsAt: "2026-12-01T00:00:00.000Z",
    });

    const forbidden = await call("workflow.create", { name: "One too many" });
    expect(forbidden.status).toBe(403);
    const fb = (await forbidden.json()) as { error: { json: { data: unknown } } };
    expect(fb.error.json.data).toMatchObject({
      code: "FORBIDDEN",
      domainCode: "QUOTA_EXCEEDED",
      quota: "definitionsPerWorkspace",
    });
  });
});
