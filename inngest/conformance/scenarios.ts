/**
 * The conformance corpus: every scenario runs unchanged on the embedded executor, `inngest dev`
 * and `inngest start` (engines.ts), and asserts the same run outcome, step records and run events
 * on each — the expectations are written once, here. Side effects go to a counting stub, so
 * "exactly once per attempt" is checked on every engine.
 */
import { createHmac } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { proposals, runs } from "@/db/schema";
import type { Role } from "@/lib/schemas/roles";
import { handleWebhook } from "@/server/http/hooks";
import { decideApproval } from "@/server/services/approvals/decide-approval";
import { emitEvents } from "@/server/services/events/emit-events";
import { cancelRun } from "@/server/services/runs/cancel-run";
import { rerunRun } from "@/server/services/runs/rerun-run";
import { createTrigger } from "@/server/services/triggers/create-trigger";
import { updateLlmIntegration } from "@/server/services/settings/update-llm-integration";
import { updateMcpServers } from "@/server/services/settings/update-mcp-servers";
import { completeTask } from "@/server/services/tasks/complete-task";
import { startFakeMcp } from "@/server/testing/fake-mcp";
import { startFakeOpenAi } from "@/server/testing/fake-openai";
import type { ConformanceHarness, PreparedEngine } from "./engines";
import {
  countStep,
  fanOutDefinition,
  openWorkspace,
  records,
  startCountingStub,
  type CountingStub,
} from "./fixtures";

export interface ScenarioContext {
  e: ConformanceHarness;
  stub: CountingStub;
  /** Variables every scenario's definition gets (`{{ vars.stub }}`). */
  vars: Record<string, string>;
}

type Scenario = (c: ScenarioContext) => Promise<void>;

const RUN_TIMEOUT = 90_000;

const done = ["completed", "failed", "cancelled", "timed_out"];

async function finished(c: ScenarioContext, runId: string) {
  return c.e.waitFor(runId, done, { timeoutMs: RUN_TIMEOUT });
}

/** The engine's execution of a run ended too (none left running behind a finished run). */
async function executionEnded(c: ScenarioContext, executionId: string | null, status: string) {
  expect(executionId, "the run records its engine execution id").toBeTruthy();
  const seen = await c.e.until(
    async () => {
      const s = await c.e.executionStatus(executionId!);
      return s && s !== "running" && s !== "queued" ? s : undefined;
    },
    `execution ${executionId} to end`,
    RUN_TIMEOUT,
  );
  expect(seen).toBe(status);
}

/** The first run of `workflowId` its trigger of `kind` started, once there is one. */
function firstRunBy(
  c: ScenarioContext,
  workflowId: string,
  kind: "event" | "schedule",
  timeoutMs = RUN_TIMEOUT,
) {
  return c.e.until(
    async () =>
      (
        await c.e.db.db
          .select()
          .from(runs)
          .where(and(eq(runs.workflowId, workflowId), eq(runs.triggerType, kind)))
      )[0],
    `a run of ${workflowId} started by its ${kind} trigger`,
    timeoutMs,
  );
}

/** Waits until the run's step at `path` has a row in `status`. */
async function stepIn(c: ScenarioContext, runId: string, path: string, status: string) {
  return c.e.until(
    async () => {
      const rows = await c.e.steps(runId);
      return rows.find((r) => r.path === path && r.status === status);
    },
    `step ${path} of run ${runId} to be ${status}`,
    RUN_TIMEOUT,
  );
}

async function decide(
  c: ScenarioContext,
  approvalId: string,
  approve: boolean,
  role: Role = "approver",
) {
  await decideApproval({
    ctx: c.e.ws.ctx(role),
    input: { approvalId, approve, reason: approve ? "" : "not now" },
    via: "ui",
  });
}

/** A definition with the scenario variables. */
function def(c: ScenarioContext, d: Record<string, unknown>) {
  return { schemaVersion: 1, variables: c.vars, ...d };
}

export const scenarios: Record<string, Scenario> = {
  async "a chain of pure and side-effecting steps"(c) {
    const { e, stub } = c;
    const wf = await e.workflow(
      def(c, {
        name: "Chain",
        inputs: { x: { type: "number", default: 21 } },
        steps: [
          { id: "a", type: "transform", config: { value: { x: "{{ input.x }}" } } },
          countStep("b", "chain-b"),
          {
            id: "c",
            type: "code",
            config: { source: "export default (i) => i.x * 2", input: "{{ steps.a.output.data }}" },
          },
          { id: "d", type: "return", config: { value: { doubled: "{{ steps.c.output.data }}" } } },
        ],
      }),
    );
    const runId = await e.start(wf, { x: 21 });
    const run = await finished(c, runId);
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    expect(run.output).toEqual({ doubled: 42 });
    expect(stub.count("chain-b")).toBe(1);
    expect(stub.keys("chain-b")).toEqual([`${runId}:b:1`]);
    const r = await records(e, runId);
    expect(r.steps).toEqual(["a@1:completed", "b@1:completed", "c@1:completed", "d@1:completed"]);
    expect(r.events).toEqual(
      [
        "run.queued",
        "run.started",
        ...["a", "b", "c", "d"].flatMap((s) => [`step.started:${s}`, `step.completed:${s}`]),
        "run.finished",
      ].sort(),
    );
  },

  async "fan-out and join with side effects: every effect exactly once"(c) {
    const { e, stub } = c;
    const wf = await e.workflow({ ...fanOutDefinition("Fan-out", 4, "fan"), variables: c.vars });
    const runIds: string[] = [];
    for (let i = 0; i < 5; i++) runIds.push(await e.start(wf));
    for (const runId of runIds) {
      const run = await finished(c, runId);
      expect(run.status, JSON.stringify(run.error)).toBe("completed");
      expect(run.output).toBe(200);
      await executionEnded(c, run.inngestRunId, "completed");
    }
    for (let i = 0; i < 4; i++) expect(stub.count(`fan-b${i}`)).toBe(5);
    expect(stub.count("fan-join")).toBe(5);
    expect(stub.lines("fan-after")).toBe(5);
    const r = await records(e, runIds[0]!);
    expect(r.steps).toEqual(
      [
        "start@1:completed",
        ...[0, 1, 2, 3].map((i) => `b${i}@1:completed`),
        "join@1:completed",
        "after@1:completed",
        "done@1:completed",
      ].sort(),
    );
    expect(r.events.filter((x) => x.startsWith("step.started"))).toHaveLength(8);
    expect(r.events.filter((x) => x.startsWith("step.completed"))).toHaveLength(8);
  },

  async "nested parallel branches join twice"(c) {
    const { e, stub } = c;
    //        ┌─ b ─┬─ b1 ─┐
    //   a ───┤     └─ b2 ─┴─ bj ─┐
    //        └─ c ───────────────┴─ j
    const wf = await e.workflow(
      def(c, {
        name: "Nested",
        steps: [
          { id: "a", type: "transform", config: { value: 1 } },
          countStep("b", "nest-b"),
          countStep("b1", "nest-b1"),
          countStep("b2", "nest-b2"),
          countStep("bj", "nest-bj"),
          countStep("c", "nest-c"),
          countStep("j", "nest-j"),
        ],
        edges: [
          { from: "a", to: "b" },
          { from: "a", to: "c" },
          { from: "b", to: "b1" },
          { from: "b", to: "b2" },
          { from: "b1", to: "bj" },
          { from: "b2", to: "bj" },
          { from: "bj", to: "j" },
          { from: "c", to: "j" },
        ],
        output: "{{ steps.j.output.data.status }}",
      }),
    );
    const run = await finished(c, await e.start(wf));
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    for (const k of ["b", "b1", "b2", "bj", "c", "j"]) expect(stub.count(`nest-${k}`)).toBe(1);
    expect((await records(e, run.id)).steps).toHaveLength(7);
  },

  async "a loop with concurrency runs each body once"(c) {
    const { e, stub } = c;
    const wf = await e.workflow(
      def(c, {
        name: "Loop",
        steps: [
          {
            id: "each",
            type: "loop",
            config: {
              items: [1, 2, 3, 4, 5],
              concurrency: 3,
              body: {
                steps: [
                  {
                    id: "call",
                    type: "http",
                    config: {
                      method: "POST",
                      url: "{{ vars.stub }}/count/loop-{{ loop.index }}",
                      body: { item: "{{ loop.item }}" },
                    },
                  },
                  { id: "val", type: "transform", config: { value: "{{ loop.item }}" } },
                ],
                edges: [{ from: "call", to: "val" }],
              },
            },
          },
          countStep("after", "loop-after"),
        ],
        edges: [{ from: "each", port: "done", to: "after" }],
        output: "{{ steps.each.output.data }}",
      }),
    );
    const run = await finished(c, await e.start(wf));
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    expect(run.output).toEqual([1, 2, 3, 4, 5]);
    for (let i = 0; i < 5; i++) expect(stub.count(`loop-${i}`)).toBe(1);
    expect(stub.count("loop-after")).toBe(1);
    const steps = (await records(e, run.id)).steps;
    expect(steps.filter((s) => s.includes("].call@1:completed"))).toHaveLength(5);
  },

  async "a parent waits on a child that fans out"(c) {
    const { e, stub } = c;
    const child = await e.workflow({
      ...fanOutDefinition("Child fan-out", 3, "child"),
      variables: c.vars,
    });
    const parent = await e.workflow(
      def(c, {
        name: "Parent",
        steps: [
          { id: "sub", type: "subworkflow", config: { workflow: child, input: {} } },
          countStep("after", "parent-after"),
        ],
        output: "{{ steps.sub.output.data }}",
      }),
    );
    const run = await finished(c, await e.start(parent));
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    expect(run.output).toBe(200);
    expect(stub.count("child-join")).toBe(1);
    expect(stub.lines("child-after")).toBe(1);
    expect(stub.count("parent-after")).toBe(1);
    expect((await records(e, run.id)).steps).toEqual(["after@1:completed", "sub@1:completed"]);
  },

  async "wait_for_event resumes on a matching event"(c) {
    const { e } = c;
    const wf = await e.workflow(
      def(c, {
        name: "Wait match",
        inputs: { order: { type: "string", default: "o-1" } },
        steps: [
          {
            id: "paid",
            type: "wait_for_event",
            config: {
              event: "order.paid",
              match: { "data.order": "{{ input.order }}" },
              timeout: "5m",
            },
          },
          {
            id: "amount",
            type: "transform",
            config: { value: "{{ steps.paid.output.data.data.amount }}" },
          },
        ],
        output: "{{ steps.amount.output.data }}",
      }),
    );
    const order = `o-${Math.random().toString(36).slice(2, 8)}`;
    const runId = await e.start(wf, { order });
    await stepIn(c, runId, "paid", "waiting");
    await emitEvents({
      ctx: e.ws.ctx("editor"),
      input: { name: "order.paid", data: { order: "other", amount: 1 } },
    });
    await emitEvents({
      ctx: e.ws.ctx("editor"),
      input: { name: "order.paid", data: { order, amount: 250 } },
    });
    const run = await finished(c, runId);
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    expect(run.output).toBe(250);
    expect((await records(e, runId)).steps).toEqual(["amount@1:completed", "paid@1:completed"]);
  },

  async "wait_for_event times out with null"(c) {
    const { e } = c;
    const wf = await e.workflow(
      def(c, {
        name: "Wait timeout",
        steps: [
          { id: "never", type: "wait_for_event", config: { event: "never.sent", timeout: "2s" } },
          {
            id: "got",
            type: "transform",
            config: { value: { v: "{{ steps.never.output.data }}" } },
          },
        ],
        output: "{{ steps.got.output.data }}",
      }),
    );
    const run = await finished(c, await e.start(wf));
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    expect(run.output).toEqual({ v: null });
  },

  async "approval: approve and reject take their ports"(c) {
    const { e, stub } = c;
    const wf = await e.workflow(
      def(c, {
        name: "Gate",
        steps: [
          { id: "ask", type: "approval", config: { prompt: "Ship?" } },
          countStep("ship", "gate-ship"),
          { id: "no", type: "transform", config: { value: "rejected" } },
        ],
        edges: [
          { from: "ask", port: "approved", to: "ship" },
          { from: "ask", port: "rejected", to: "no" },
        ],
      }),
    );
    const yes = await e.start(wf);
    const no = await e.start(wf);
    await decide(c, (await e.pendingApproval(yes)).id, true);
    await decide(c, (await e.pendingApproval(no)).id, false);
    const a = await finished(c, yes);
    const b = await finished(c, no);
    expect([a.status, b.status]).toEqual(["completed", "completed"]);
    expect(stub.count("gate-ship")).toBe(1);
    expect((await records(e, yes)).steps).toEqual([
      "ask@1:completed:approved",
      "no@0:skipped",
      "ship@1:completed",
    ]);
    expect((await records(e, no)).steps).toEqual([
      "ask@1:completed:rejected",
      "no@1:completed",
      "ship@0:skipped",
    ]);
  },

  async "approval: quorum of two, and a timeout that rejects"(c) {
    const { e } = c;
    const quorum = await e.workflow(
      def(c, {
        name: "Quorum",
        steps: [
          { id: "ask", type: "approval", config: { prompt: "Two?", quorum: 2 } },
          { id: "ok", type: "transform", config: { value: "approved" } },
        ],
        edges: [{ from: "ask", port: "approved", to: "ok" }],
        output: "{{ steps.ok.output.data }}",
      }),
    );
    const timeout = await e.workflow(
      def(c, {
        name: "Gate timeout",
        steps: [
          {
            id: "ask",
            type: "approval",
            config: { prompt: "Soon?", timeout: "2s", onTimeout: "reject" },
          },
          { id: "late", type: "transform", config: { value: "timed out" } },
        ],
        edges: [{ from: "ask", port: "rejected", to: "late" }],
        output: "{{ steps.late.output.data }}",
      }),
    );
    const q = await e.start(quorum);
    const t = await e.start(timeout);
    const gate = await e.pendingApproval(q);
    await decide(c, gate.id, true, "approver");
    expect((await e.steps(q)).find((s) => s.path === "ask")?.status).toBe("waiting");
    await decide(c, gate.id, true, "admin");
    const qr = await finished(c, q);
    expect(qr.status).toBe("completed");
    expect(qr.output).toBe("approved");
    const tr = await finished(c, t);
    expect(tr.status, JSON.stringify(tr.error)).toBe("completed");
    expect(tr.output).toBe("timed out");
  },

  async "a delay, then a side effect"(c) {
    const { e, stub } = c;
    const wf = await e.workflow(
      def(c, {
        name: "Delay",
        steps: [
          { id: "nap", type: "delay", config: { duration: "1s" } },
          countStep("after", "delay-after"),
        ],
      }),
    );
    const t0 = Date.now();
    const run = await finished(c, await e.start(wf));
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1_000);
    expect(stub.count("delay-after")).toBe(1);
  },

  async "cancel during a delay, an approval and an event wait"(c) {
    const { e, stub } = c;
    const wf = await e.workflow(
      def(c, {
        name: "Cancellable",
        steps: [
          { id: "nap", type: "delay", config: { duration: "10m" } },
          { id: "ask", type: "approval", config: { prompt: "?" } },
          { id: "wait", type: "wait_for_event", config: { event: "never.sent", timeout: "10m" } },
          countStep("never", "cancel-never"),
        ],
        edges: [
          { from: "nap", to: "never" },
          { from: "ask", port: "approved", to: "never" },
          { from: "wait", to: "never" },
        ],
      }),
    );
    const runId = await e.start(wf);
    await stepIn(c, runId, "nap", "waiting");
    await stepIn(c, runId, "ask", "waiting");
    await stepIn(c, runId, "wait", "waiting");
    await cancelRun({ ctx: e.ws.ctx("editor"), input: { runId } });
    const run = await finished(c, runId);
    expect(run.status).toBe("cancelled");
    expect(stub.count("cancel-never")).toBe(0);
    const steps = (await records(e, runId)).steps;
    for (const p of ["nap", "ask", "wait"]) expect(steps).toContain(`${p}@1:cancelled`);
  },

  async "a run deadline times the run out"(c) {
    const { e, stub } = c;
    const wf = await e.workflow(
      def(c, {
        name: "Deadline",
        constraints: { timeoutMs: 3_000 },
        steps: [
          { id: "nap", type: "delay", config: { duration: "10m" } },
          countStep("never", "deadline-never"),
        ],
      }),
    );
    const run = await finished(c, await e.start(wf));
    expect(run.status).toBe("timed_out");
    expect(stub.count("deadline-never")).toBe(0);
  },

  async "retries: each attempt recorded, called once, with its own Idempotency-Key"(c) {
    const { e, stub } = c;
    stub.failNext("retry-call", 2, 503);
    const wf = await e.workflow(
      def(c, {
        name: "Retry",
        steps: [countStep("call", "retry-call", { retry: { maxAttempts: 3, backoffMs: [1000] } })],
        output: "{{ steps.call.output.data.status }}",
      }),
    );
    const run = await finished(c, await e.start(wf));
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    expect(run.output).toBe(200);
    expect(stub.keys("retry-call")).toEqual([1, 2, 3].map((n) => `${run.id}:call:${n}`));
    expect((await records(e, run.id)).steps).toEqual([
      "call@1:failed",
      "call@2:failed",
      "call@3:completed",
    ]);
  },

  async "rerun from a failed step reuses what came before"(c) {
    const { e, stub } = c;
    stub.failNext("rerun-b", 1, 400);
    const wf = await e.workflow(
      def(c, {
        name: "Rerun",
        steps: [countStep("a", "rerun-a"), countStep("b", "rerun-b")],
        output: "{{ steps.b.output.data.status }}",
      }),
    );
    const first = await finished(c, await e.start(wf));
    expect(first.status).toBe("failed");
    const again = await rerunRun({
      ctx: e.ws.ctx("editor"),
      input: { runId: first.id, fromStepId: "b" },
    });
    const run = await finished(c, again.runId);
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    expect(run.output).toBe(200);
    expect(stub.count("rerun-a")).toBe(1);
    expect(stub.count("rerun-b")).toBe(2);
  },

  async "a signed webhook starts a run with mapped input"(c) {
    const { e } = c;
    const wf = await e.workflow(
      def(c, {
        name: "Hooked",
        inputs: { order: { type: "string", required: true } },
        steps: [{ id: "echo", type: "transform", config: { value: "got {{ input.order }}" } }],
        output: "{{ steps.echo.output.data }}",
      }),
    );
    const created = await createTrigger({
      ctx: e.ws.ctx("editor"),
      input: {
        kind: "webhook",
        workflowId: wf,
        name: "Hook",
        config: { mapping: { order: "$.order.id" } },
      },
    });
    const body = JSON.stringify({ order: { id: "W-1" } });
    const sig = createHmac("sha256", created.secret!).update(body).digest("hex");
    const res = await handleWebhook(
      new Request(`http://localhost/api/hooks/${created.trigger.path}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-signature": `sha256=${sig}` },
        body,
      }),
      { params: Promise.resolve({ path: created.trigger.path!.split("/") }) },
    );
    expect(res.status).toBe(202);
    const { runId } = (await res.json()) as { runId: string };
    const run = await finished(c, runId);
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    expect(run.output).toBe("got W-1");
    expect(run.triggerType).toBe("webhook");
  },

  async "emit_event starts an event-triggered workflow"(c) {
    const { e } = c;
    const tag = Math.random().toString(36).slice(2, 8);
    const listener = await e.workflow(
      def(c, {
        name: "Listener",
        inputs: { id: { type: "string", required: true } },
        steps: [{ id: "got", type: "transform", config: { value: "heard {{ input.id }}" } }],
        output: "{{ steps.got.output.data }}",
      }),
    );
    await createTrigger({
      ctx: e.ws.ctx("editor"),
      input: {
        kind: "event",
        workflowId: listener,
        name: "On ready",
        config: { event: `shipment.ready.${tag}`, mapping: { id: "$.data.id" } },
      },
    });
    const source = await e.workflow(
      def(c, {
        name: "Emitter",
        steps: [
          {
            id: "tell",
            type: "emit_event",
            config: { event: `shipment.ready.${tag}`, data: { id: "s-1" } },
          },
        ],
      }),
    );
    const src = await finished(c, await e.start(source));
    expect(src.status).toBe("completed");
    const started = await firstRunBy(c, listener, "event");
    const run = await finished(c, started.id);
    expect(run.output).toBe("heard s-1");
  },

  async "condition routes, and notify sends once"(c) {
    const { e, stub } = c;
    const wf = await e.workflow(
      def(c, {
        name: "Route",
        inputs: { amount: { type: "number", default: 250 } },
        steps: [
          { id: "big", type: "condition", config: { condition: { ref: "input.amount", gt: 100 } } },
          {
            id: "tell",
            type: "notify",
            config: {
              channel: "webhook",
              target: "{{ vars.stub }}/count/notify-{{ run.id }}",
              message: "big order {{ input.amount }}",
            },
          },
          { id: "small", type: "transform", config: { value: "small" } },
        ],
        edges: [
          { from: "big", port: "true", to: "tell" },
          { from: "big", port: "false", to: "small" },
        ],
      }),
    );
    const run = await finished(c, await e.start(wf, { amount: 250 }));
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    expect(stub.count(`notify-${run.id}`)).toBe(1);
    expect((await records(e, run.id)).steps).toEqual([
      "big@1:completed:true",
      "small@0:skipped",
      "tell@1:completed",
    ]);
  },

  async "a task waits for its assignee and resumes with the output"(c) {
    const { e } = c;
    const wf = await e.workflow(
      def(c, {
        name: "Task",
        steps: [
          {
            id: "work",
            type: "task",
            config: { instructions: "Review it", assignee: { roles: ["editor"] }, timeout: "1h" },
          },
          {
            id: "after",
            type: "transform",
            config: { value: "{{ steps.work.output.data.verdict }}" },
          },
        ],
        output: "{{ steps.after.output.data }}",
      }),
    );
    const runId = await e.start(wf);
    const task = await e.pendingTask(runId);
    await completeTask({
      ctx: e.ws.ctx("editor"),
      input: { taskId: task.id, output: { verdict: "ok" } },
      via: "ui",
    });
    const run = await finished(c, runId);
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    expect(run.output).toBe("ok");
  },

  async "llm, agent and tool steps against local fakes, each called once"(c) {
    const { e } = c;
    const openai = await startFakeOpenAi((req) => {
      if (req.messages.some((m) => m.role === "tool")) return { content: "the sum is 5" };
      if (req.tools?.length) return { toolCalls: [{ name: "add", arguments: { a: 2, b: 3 } }] };
      return { content: "hello" };
    });
    const mcp = await startFakeMcp("json");
    try {
      const admin = e.ws.ctx("admin");
      await updateLlmIntegration({
        ctx: admin,
        input: { llm: { baseUrl: openai.baseUrl, model: "fake-model" } },
      });
      await updateMcpServers({
        ctx: admin,
        input: { mcpServers: [{ name: "fake", url: mcp.url }] },
      });
      const wf = await e.workflow(
        def(c, {
          name: "Models",
          steps: [
            { id: "ask", type: "llm", config: { prompt: "Say hello" } },
            {
              id: "agent",
              type: "agent",
              config: {
                goal: "Add 2 and 3",
                tools: [{ type: "mcp", url: mcp.url }],
                maxIterations: 3,
              },
            },
            {
              id: "sum",
              type: "tool",
              config: { server: "fake", tool: "add", arguments: { a: 20, b: 22 } },
            },
          ],
          edges: [
            { from: "ask", to: "agent" },
            { from: "agent", to: "sum" },
          ],
          output: {
            llm: "{{ steps.ask.output.data }}",
            agent: "{{ steps.agent.output.data }}",
          },
        }),
      );
      const run = await finished(c, await e.start(wf));
      expect(run.status, JSON.stringify(run.error)).toBe("completed");
      expect(run.output).toEqual({ llm: "hello", agent: "the sum is 5" });
      // llm once, agent twice (tool call, then the answer): each model call made once.
      expect(openai.bodies).toHaveLength(3);
      expect(mcp.calls.map((x) => x.name)).toEqual(["add", "add"]);
      expect((await records(e, run.id)).steps).toEqual([
        "agent@1:completed",
        "ask@1:completed",
        "sum@1:completed",
      ]);
    } finally {
      await openai.close();
      await mcp.close();
    }
  },

  async "propose_change opens one proposal"(c) {
    const { e } = c;
    const wf = await e.workflow(
      def(c, {
        name: "Self improving",
        constraints: { allowSelfModification: true },
        steps: [
          { id: "shape", type: "transform", config: { value: 1 } },
          {
            id: "improve",
            type: "propose_change",
            config: {
              summary: "Use 2",
              patch: [{ op: "replace", path: "/steps/0/config/value", value: 2 }],
            },
          },
        ],
      }),
    );
    const run = await finished(c, await e.start(wf));
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    const rows = await e.db.db.select().from(proposals).where(eq(proposals.runId, run.id));
    expect(rows.map((r) => [r.status, r.stepId])).toEqual([["pending", "improve"]]);
  },

  async "a cron tick starts a scheduled run"(c) {
    const { e } = c;
    const wf = await e.workflow(
      def(c, {
        name: "Cron",
        steps: [{ id: "tick", type: "transform", config: { value: "{{ trigger.type }}" } }],
        output: "{{ steps.tick.output.data }}",
      }),
    );
    await createTrigger({
      ctx: e.ws.ctx("editor"),
      input: {
        kind: "schedule",
        workflowId: wf,
        name: "Every minute",
        config: { cron: "* * * * *" },
      },
    });
    const started = await firstRunBy(c, wf, "schedule", 130_000);
    const run = await finished(c, started.id);
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
  },
};

/** Starts the engine, a counting stub and an open workspace for one describe block. */
function scenarioContext(c: ScenarioContext, prepared: PreparedEngine, label: string) {
  beforeAll(async () => {
    c.e = await prepared.start(`${label}${prepared.kind}`);
    c.stub = await startCountingStub();
    c.vars = { stub: c.stub.origin };
    await openWorkspace(c.e);
  }, 180_000);
  afterAll(async () => {
    await c.stub?.close();
    await c.e?.close();
  });
}

/**
 * The stress test (issue 24 item 2): `runs` fan-out runs with 3–8 parallel side-effecting branches
 * and an http and a script step after the join. Required: no run hangs, every effect happens
 * exactly once per run, every run completes, and every engine execution ends.
 */
export { fanOutDefinition };

export function defineStress(prepared: PreparedEngine, runsWanted = 200) {
  const d = prepared.skip ? describe.skip : describe;
  if (prepared.skip) console.warn(`stress on ${prepared.kind} skipped: ${prepared.skip}`);
  d(`fan-out stress on ${prepared.kind}`, () => {
    const c = {} as ScenarioContext;
    scenarioContext(c, prepared, "stress");
    it(`${runsWanted} fan-out runs: 0 hung, every effect exactly once`, async () => {
      const { e, stub } = c;
      const widths = [3, 4, 5, 6, 7, 8];
      const workflows = new Map<number, string>();
      for (const n of widths) {
        const d = fanOutDefinition(`Stress ${n}`, n, "st-{{ run.id }}");
        workflows.set(n, await e.workflow({ ...d, variables: c.vars }));
      }
      const started: { runId: string; n: number }[] = [];
      for (let i = 0; i < runsWanted; i++) {
        const n = widths[i % widths.length]!;
        started.push({ runId: await e.start(workflows.get(n)!), n });
      }
      const t0 = Date.now();
      const hung: string[] = [];
      for (const { runId } of started) {
        const left = Math.max(5_000, 240_000 - (Date.now() - t0));
        const run = await e.waitFor(runId, done, { timeoutMs: left }).catch(() => undefined);
        if (!run) hung.push(runId);
        else expect(run.status, `${runId}: ${JSON.stringify(run.error)}`).toBe("completed");
      }
      expect(hung, "runs still not finished after 240 s").toEqual([]);
      const repeated: string[] = [];
      for (const { runId, n } of started) {
        for (let b = 0; b < n; b++)
          if (stub.count(`st-${runId}-b${b}`) !== 1) repeated.push(`${runId} b${b}`);
        if (stub.count(`st-${runId}-join`) !== 1) repeated.push(`${runId} join`);
        if (stub.lines(`st-${runId}-after`) !== 1) repeated.push(`${runId} after`);
      }
      expect(repeated, "effects not exactly once").toEqual([]);
      const rows = await e.db.db
        .select({ id: runs.id, executionId: runs.inngestRunId })
        .from(runs)
        .where(eq(runs.workspaceId, e.ws.workspaceId));
      // One shared deadline: with the bug, many executions never end.
      const deadline = Date.now() + 60_000;
      const ended = new Map<string, string>();
      while (Date.now() < deadline && ended.size < rows.length) {
        await Promise.all(
          rows
            .filter((r) => !ended.has(r.id))
            .map(async (r) => {
              const s = await e.executionStatus(r.executionId ?? "");
              if (s && s !== "running" && s !== "queued") ended.set(r.id, s);
            }),
        );
        if (ended.size < rows.length) await new Promise((r) => setTimeout(r, 500));
      }
      const leaked = rows
        .filter((r) => ended.get(r.id) !== "completed")
        .map((r) => `${r.id}: ${ended.get(r.id) ?? "still running"}`);
      expect(leaked, "engine executions not completed").toEqual([]);
    }, 600_000);
  });
}

/** Registers the whole corpus for one engine (skipped with the reason when it is not here). */
export function defineConformance(prepared: PreparedEngine, only?: string[]) {
  const d = prepared.skip ? describe.skip : describe;
  if (prepared.skip) console.warn(`conformance on ${prepared.kind} skipped: ${prepared.skip}`);
  d(`conformance on ${prepared.kind}`, () => {
    const c = {} as ScenarioContext;
    scenarioContext(c, prepared, "conf");
    for (const [name, scenario] of Object.entries(scenarios)) {
      if (only && !only.includes(name)) continue;
      it.concurrent(name, () => scenario(c), 240_000);
    }
  });
}
