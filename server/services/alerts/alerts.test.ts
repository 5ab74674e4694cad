/**
 * Issue #30 items 4–5 through the real engine (executor, SDK, outbox relay) on a real database:
 * a burst of failing runs sends exactly one alert to a local Slack-style receiver, the next window
 * sends a new one carrying the suppressed count; long-waiting gates and rejecting triggers alert
 * through the sweep; an error workflow starts with the failed run's context and never recurses.
 */
import { createHmac } from "node:crypto";
import { and, eq, isNotNull } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alerts, outbox, runs } from "@/db/schema";
import { ERROR_WORKFLOW_INPUTS } from "@/lib/schemas/alerts";
import { handleWebhook } from "@/server/http/hooks";
import { createSecret } from "@/server/services/secrets/create-secret";
import { updateWorkspacePolicies } from "@/server/services/settings/update-workspace-policies";
import { createTrigger } from "@/server/services/triggers/create-trigger";
import { startAlertReceiver, type AlertReceiver } from "@/server/testing/alert-receiver";
import { createWorkspaceFixture, type WorkspaceFixture } from "@/server/testing/harness";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";
import { sweepAlerts } from "./sweep-alerts";
import { updateWorkflowAlerts } from "./update-workflow-alerts";
import { updateWorkspaceAlerts } from "./update-workspace-alerts";

let e: RunHarness;
let slack: AlertReceiver;
let hook: AlertReceiver;
beforeAll(async () => {
  e = await startRunHarness("alerts");
  slack = await startAlertReceiver();
  hook = await startAlertReceiver();
});
afterAll(async () => {
  await slack?.close();
  await hook?.close();
  await e?.close();
});

const failing = (name: string) => ({
  schemaVersion: 1,
  name,
  steps: [
    // Refused before any connection (10.0.0.1 is private, not allowed): a fast user failure.
    { id: "boom", type: "http", config: { url: "http://10.0.0.1/export" } },
  ],
});

/** A workspace whose alerts go to the local receivers (127.0.0.1 allowed as a private host). */
async function alertingWorkspace(label: string, windowMinutes = 60): Promise<WorkspaceFixture> {
  const fx = await createWorkspaceFixture(e.db.db, label);
  const admin = fx.ctx("admin");
  await updateWorkspacePolicies({
    ctx: admin,
    input: {
      scriptStepsEnabled: false,
      allowedPrivateHosts: ["127.0.0.1"],
      forbiddenStepTypes: [],
    },
  });
  await createSecret({ ctx: admin, input: { name: "SLACK_URL", value: `${slack.url}/${label}` } });
  await updateWorkspaceAlerts({
    ctx: admin,
    input: { channels: [{ kind: "slack", secret: "SLACK_URL" }], windowMinutes },
  });
  return fx;
}

const sentTo = (r: AlertReceiver, label: string) =>
  r.received.filter((x) => x.path === `/${label}`);

async function alertRows(workflowId: string) {
  return e.db.db.select().from(alerts).where(eq(alerts.workflowId, workflowId));
}

describe("failure alerts", () => {
  it("a burst of 50 failures sends exactly one alert; the next window's alert carries the 49 suppressed", async () => {
    const fx = await alertingWorkspace("Burst");
    const wf = await e.workflow(failing("Nightly export"), fx);
    const started = await Promise.all(Array.from({ length: 50 }, () => e.start(wf, {}, fx)));
    for (const id of started) await e.waitFor(id, ["failed"], { timeoutMs: 120_000 });
    // Every failure is recorded (the relay handled all 50 events) and the one sent was delivered.
    const rows = await e.h.until(
      async () => {
        const r = await alertRows(wf);
        return r.length === 50 && r.some((a) => a.status === "delivered") ? r : undefined;
      },
      "50 recorded alerts, one delivered",
      60_000,
    );
    expect(rows.filter((r) => r.status === "suppressed")).toHaveLength(49);
    const sent = rows.find((r) => r.status === "delivered")!;
    expect(sent.suppressedCount).toBe(0);
    expect(sentTo(slack, "Burst")).toHaveLength(1);
    const text = String(sentTo(slack, "Burst")[0]!.body.text);
    expect(text).toContain('Workflow "Nightly export" run failed');
    expect(text).toContain(`http://localhost:3000/runs/${sent.runId}`);

    // A later window: the next failure is sent, with the 49 suppressed ones counted.
    e.h.clock.advance(61 * 60_000);
    const later = await e.start(wf, {}, fx);
    await e.waitFor(later, ["failed"]);
    const next = await e.h.until(async () => {
      const [r] = (await alertRows(wf)).filter(
        (a) => a.runId === later && a.status === "delivered",
      );
      return r;
    }, "the next window's alert delivered");
    expect(next.suppressedCount).toBe(49);
    expect(sentTo(slack, "Burst")).toHaveLength(2);
    expect(String(sentTo(slack, "Burst")[1]!.body.text)).toContain("+49 more suppressed");
  }, 300_000);

  it("a failing channel is retried until it answers, and the error stored names no URL", async () => {
    const fx = await alertingWorkspace("Retry");
    const wf = await e.workflow(failing("Flaky receiver"), fx);
    await updateWorkflowAlerts({
      ctx: fx.ctx("editor"),
      input: {
        workflowId: wf,
        channels: [{ kind: "webhook", url: `${hook.url}/Retry` }],
        errorWorkflowId: null,
      },
    });
    hook.respond = 503;
    const runId = await e.start(wf, {}, fx);
    await e.waitFor(runId, ["failed"]);
    const failed = await e.h.until(async () => {
      const [r] = await alertRows(wf);
      return r?.status === "failed" ? r : undefined;
    }, "a failed delivery attempt");
    expect(failed.lastError).toBe("webhook#0: HTTP 503");
    expect(JSON.stringify(failed)).not.toContain(hook.url);
    hook.respond = 200;
    await e.h.until(async () => {
      const [r] = await alertRows(wf);
      return r?.status === "delivered";
    }, "the retried delivery");
    const got = sentTo(hook, "Retry");
    expect(got).toHaveLength(1);
    expect(got[0]!.body).toMatchObject({
      event: "sluice.alert",
      kind: "run_failed",
      runId,
      workflowId: wf,
      suppressed: 0,
      url: `http://localhost:3000/runs/${runId}`,
    });
    expect(got[0]!.headers["idempotency-key"]).toBe(failed.id);
    // The workflow's own channel replaced the workspace's Slack default.
    expect(sentTo(slack, "Retry")).toHaveLength(0);
  });

  it("a gate waiting longer than the workspace's threshold alerts once", async () => {
    const fx = await alertingWorkspace("Gate");
    await updateWorkspaceAlerts({
      ctx: fx.ctx("admin"),
      input: { channels: [{ kind: "slack", secret: "SLACK_URL" }], gateAgeHours: 2 },
    });
    const wf = await e.workflow(
      {
        schemaVersion: 1,
        name: "Needs sign-off",
        steps: [{ id: "ok", type: "approval", config: { prompt: "Ship?" } }],
      },
      fx,
    );
    const runId = await e.start(wf, {}, fx);
    const gate = await e.pendingApproval(runId);
    const at = (hours: number) => new Date(gate.createdAt.getTime() + hours * 3_600_000);
    await sweepAlerts(e.db.db, at(1.5));
    expect(await alertRows(wf)).toHaveLength(0);
    await sweepAlerts(e.db.db, at(2.5));
    await sweepAlerts(e.db.db, at(3));
    const rows = await e.h.until(async () => {
      const r = await alertRows(wf);
      return r[0]?.status === "delivered" ? r : undefined;
    }, "the gate alert delivered");
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      kind: "gate_waiting",
      runId,
      occurrenceKey: `approval:${gate.id}`,
    });
    const got = sentTo(slack, "Gate");
    expect(got).toHaveLength(1);
    expect(String(got[0]!.body.text)).toContain(`Approval "ok" has waited 2 h`);
    expect(String(got[0]!.body.text)).toContain(`/runs/${runId}`);
  });

  it("a trigger whose deliveries keep being rejected alerts at the threshold", async () => {
    const fx = await alertingWorkspace("Rejects");
    await updateWorkspaceAlerts({
      ctx: fx.ctx("admin"),
      input: { channels: [{ kind: "slack", secret: "SLACK_URL" }], rejectThreshold: 3 },
    });
    const wf = await e.workflow(
      {
        schemaVersion: 1,
        name: "Orders",
        steps: [{ id: "t", type: "transform", config: { value: 1 } }],
      },
      fx,
    );
    const t = await createTrigger({
      ctx: fx.ctx("editor"),
      input: { kind: "webhook", workflowId: wf, name: "Shop", config: {} },
    });
    const send = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const body = JSON.stringify({ i });
        const wrong = createHmac("sha256", "not-the-secret").update(body).digest("hex");
        const res = await handleWebhook(
          new Request(`http://localhost/api/hooks/${t.trigger.path}`, {
            method: "POST",
            headers: { "content-type": "application/json", "x-signature": `sha256=${wrong}` },
            body,
          }),
          { params: Promise.resolve({ path: t.trigger.path!.split("/") }) },
        );
        expect(res.status).toBe(401);
      }
    };
    await send(2);
    await sweepAlerts(e.db.db, new Date());
    expect(await alertRows(wf)).toHaveLength(0);
    await send(1);
    await sweepAlerts(e.db.db, new Date());
    await sweepAlerts(e.db.db, new Date());
    const rows = await e.h.until(async () => {
      const r = await alertRows(wf);
      return r[0]?.status === "delivered" ? r : undefined;
    }, "the rejects alert delivered");
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ kind: "trigger_rejecting", triggerId: t.trigger.id });
    const got = sentTo(slack, "Rejects");
    expect(got).toHaveLength(1);
    expect(String(got[0]!.body.text)).toContain(`rejected 3 deliveries`);
    expect(String(got[0]!.body.text)).toContain(`/workflows/${wf}/triggers/${t.trigger.id}`);
  });
});

describe("error workflows", () => {
  it("starts the handler with the failed run's context, and a failing handler starts nothing further", async () => {
    const fx = await createWorkspaceFixture(e.db.db, "ErrWf");
    const editor = fx.ctx("editor");
    const handler = await e.workflow(
      {
        schemaVersion: 1,
        name: "On failure",
        inputs: ERROR_WORKFLOW_INPUTS,
        steps: [{ id: "echo", type: "transform", config: { value: "{{ input.runId }}" } }],
      },
      fx,
    );
    const wf = await e.workflow(
      {
        schemaVersion: 1,
        name: "Import",
        inputs: { file: { type: "string" } },
        steps: failing("x").steps,
      },
      fx,
    );
    await updateWorkflowAlerts({
      ctx: editor,
      input: { workflowId: wf, channels: [], errorWorkflowId: handler },
    });
    const runId = await e.start(wf, { file: "a.csv" }, fx);
    const failed = await e.waitFor(runId, ["failed"]);
    const handled = await e.h.until(async () => {
      const [r] = await e.db.db.select().from(runs).where(eq(runs.workflowId, handler));
      return r;
    }, "the error workflow's run");
    expect(handled.input).toEqual({
      runId,
      workflowId: wf,
      workflowName: "Import",
      version: failed.version,
      failedStep: { id: "boom", type: "http" },
      error: failed.error,
      input: { file: "a.csv" },
    });
    expect(handled).toMatchObject({ initiatorType: "system", initiatorId: "error-workflow" });
    await e.waitFor(handled.id, ["completed"]);
    const echo = (await e.steps(handled.id)).find((s) => s.path === "echo");
    expect(JSON.stringify(echo?.output)).toContain(runId);

    // Never recursive: a handler that fails does not start its own error workflow.
    const failingHandler = await e.workflow(
      { ...failing("Broken handler"), inputs: ERROR_WORKFLOW_INPUTS },
      fx,
    );
    const lastResort = await e.workflow(
      {
        schemaVersion: 1,
        name: "Last resort",
        steps: [{ id: "t", type: "transform", config: { value: 1 } }],
      },
      fx,
    );
    await updateWorkflowAlerts({
      ctx: editor,
      input: { workflowId: wf, channels: [], errorWorkflowId: failingHandler },
    });
    await updateWorkflowAlerts({
      ctx: editor,
      input: { workflowId: failingHandler, channels: [], errorWorkflowId: lastResort },
    });
    const second = await e.start(wf, { file: "b.csv" }, fx);
    await e.waitFor(second, ["failed"]);
    const handlerRun = await e.h.until(async () => {
      const [r] = await e.db.db.select().from(runs).where(eq(runs.workflowId, failingHandler));
      return r;
    }, "the failing handler's run");
    await e.waitFor(handlerRun.id, ["failed"]);
    // Its failure event was fully handled (the relay marks it delivered after every hook ran).
    await e.h.until(async () => {
      const [row] = await e.db.db
        .select({ id: outbox.id })
        .from(outbox)
        .where(
          and(
            eq(outbox.id, `ev:${fx.workspaceId}:sys_${handlerRun.id}`),
            isNotNull(outbox.deliveredAt),
          ),
        );
      return row;
    }, "the handler's failure event delivered");
    expect(await e.db.db.select().from(runs).where(eq(runs.workflowId, lastResort))).toHaveLength(
      0,
    );
    // A handler that fails still alerts like any run (workflow channels [] here: recorded, skipped).
    expect((await alertRows(failingHandler)).map((a) => a.status)).toEqual(["skipped"]);
  });
});
