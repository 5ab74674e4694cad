import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, triggers } from "@/db/schema";
import { setProcessDb } from "@/db";
import { createTestDb, type TestDb } from "@/db/testing";
import { WebhookConfig } from "@/lib/schemas/triggers";
import { sampleRequest } from "@/lib/triggers/samples";
import { createWorkspaceFixture, type WorkspaceFixture } from "@/server/testing/harness";
import { runSampleScript } from "@/server/testing/sample-request";
import { verifySignature } from "@/server/webhooks/signatures";
import { createWorkflow } from "../workflows/create-workflow";
import { createTrigger } from "./create-trigger";
import { deleteTrigger } from "./delete-trigger";
import { fireTrigger } from "./fire-trigger";
import { getTrigger } from "./get-trigger";
import { listTriggers } from "./list-triggers";
import { updateTrigger } from "./update-trigger";

let t: TestDb;
let fx: WorkspaceFixture;
let other: WorkspaceFixture;
let workflowId: string;

beforeAll(async () => {
  t = await createTestDb("triggers");
  setProcessDb(t);
  fx = await createWorkspaceFixture(t.db, "Trig");
  other = await createWorkspaceFixture(t.db, "Other");
  // New workflows are published as 1.0.0 from their starter, so they can run at once.
  workflowId = (await createWorkflow({ ctx: fx.ctx("editor"), input: { name: "Target" } })).id;
});
afterAll(async () => {
  await t?.close();
});

describe("trigger CRUD", () => {
  it("creates each kind, returns a webhook secret once and never again", async () => {
    const web = await createTrigger({
      ctx: fx.ctx("editor"),
      input: { kind: "webhook", workflowId, name: "Hook", path: "orders-in", config: {} },
    });
    expect(web.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(web.trigger.url).toMatch(/\/api\/hooks\/orders-in$/);
    const sched = await createTrigger({
      ctx: fx.ctx("editor"),
      input: {
        kind: "schedule",
        workflowId,
        name: "Nightly",
        config: { cron: "0 3 * * *", timezone: "Europe/Berlin" },
      },
    });
    expect(sched.secret).toBeNull();
    const ev = await createTrigger({
      ctx: fx.ctx("editor"),
      input: { kind: "event", workflowId, name: "On paid", config: { event: "order.*" } },
    });
    const [row] = await t.db.select().from(triggers).where(eq(triggers.id, ev.trigger.id));
    expect(row!.eventName).toBe("order.*");

    const listed = await listTriggers({ ctx: fx.ctx("viewer"), input: { workflowId } });
    expect(listed.map((x) => x.name).sort()).toEqual(["Hook", "Nightly", "On paid"]);
    const got = await getTrigger({ ctx: fx.ctx("viewer"), input: { triggerId: web.trigger.id } });
    expect(got.sample).toContain("X-Signature: sha256=");
    const everything = JSON.stringify([listed, got]);
    expect(everything).not.toContain(web.secret!);
    expect(everything).not.toContain("ciphertext");
    const audit = await t.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.targetId, web.trigger.id));
    expect(audit.map((a) => a.action)).toEqual(["trigger.created"]);
    expect(JSON.stringify(audit)).not.toContain(web.secret!);
  });

  it("refuses bad input with the field that is wrong", async () => {
    const bad = (config: Record<string, unknown>, kind = "schedule") =>
      createTrigger({ ctx: fx.ctx("editor"), input: { kind, workflowId, name: "X", config } });
    await expect(bad({ cron: "61 * * * *" })).rejects.toMatchObject({
      issues: [{ path: ["config", "cron"] }],
    });
    await expect(bad({ cron: "0 3 * * *", timezone: "Mars/Olympus" })).rejects.toMatchObject({
      issues: [{ path: ["config", "timezone"] }],
    });
    await expect(bad({ cron: "* * * * * *" })).rejects.toThrow(/fields/);
    await expect(bad({ methd: "POST" }, "webhook")).rejects.toThrow(/methd|Unrecognized/);
    await expect(bad({ mapping: { order: "order.id" } }, "webhook")).rejects.toThrow(
      /\$\.order\.id/,
    );
    await expect(bad({ event: "bad name!" }, "event")).rejects.toThrow(/event name/);
    await expect(
      createTrigger({
        ctx: fx.ctx("editor"),
        input: { kind: "webhook", workflowId, name: "Dup", path: "orders-in", config: {} },
      }),
    ).rejects.toThrow(/taken/);
  });

  it("is scoped to the workspace and to editors", async () => {
    const foreignWf = (
      await createWorkflow({ ctx: other.ctx("editor"), input: { name: "Theirs" } })
    ).id;
    await expect(
      createTrigger({
        ctx: fx.ctx("editor"),
        input: { kind: "event", workflowId: foreignWf, name: "X", config: { event: "a.b" } },
      }),
    ).rejects.toThrow(/not found/);
    await expect(
      createTrigger({
        ctx: fx.ctx("viewer"),
        input: { kind: "event", workflowId, name: "X", config: { event: "a.b" } },
      }),
    ).rejects.toThrow(/editor/);
    const mine = await createTrigger({
      ctx: fx.ctx("editor"),
      input: { kind: "event", workflowId, name: "Mine", config: { event: "a.b" } },
    });
    await expect(
      getTrigger({ ctx: other.ctx("owner"), input: { triggerId: mine.trigger.id } }),
    ).rejects.toThrow(/not found/);
    await expect(
      deleteTrigger({ ctx: other.ctx("owner"), input: { triggerId: mine.trigger.id } }),
    ).rejects.toThrow(/not found/);
  });

  it("updates config for the trigger's kind, fires now, and deletes", async () => {
    const ev = await createTrigger({
      ctx: fx.ctx("editor"),
      input: { kind: "event", workflowId, name: "E", config: { event: "a.b" } },
    });
    const updated = await updateTrigger({
      ctx: fx.ctx("editor"),
      input: { triggerId: ev.trigger.id, name: "E2", config: { event: "c.*" } },
    });
    expect(updated).toMatchObject({ name: "E2", config: { event: "c.*" } });
    await expect(
      updateTrigger({
        ctx: fx.ctx("editor"),
        input: { triggerId: ev.trigger.id, config: { cron: "0 * * * *" } },
      }),
    ).rejects.toThrow();
    const fired = await fireTrigger({ ctx: fx.ctx("editor"), input: { triggerId: ev.trigger.id } });
    expect(fired.runId).toMatch(/^run_/);
    const got = await getTrigger({ ctx: fx.ctx("viewer"), input: { triggerId: ev.trigger.id } });
    expect(got.lastRunId).toBe(fired.runId);
    expect(got.deliveries[0]).toMatchObject({
      status: "accepted",
      runId: fired.runId,
      reason: "fired manually",
    });
    await deleteTrigger({ ctx: fx.ctx("editor"), input: { triggerId: ev.trigger.id } });
    await expect(
      getTrigger({ ctx: fx.ctx("viewer"), input: { triggerId: ev.trigger.id } }),
    ).rejects.toThrow(/not found/);
  });
});

describe("the sample request", () => {
  // The snippet the UI shows must really produce a valid signature: run it with curl replaced by a
  // function that prints the headers and body, then verify them like the receiver does.
  for (const preset of ["hmac", "github", "stripe", "standard"] as const) {
    it(`produces a valid ${preset} signature with openssl`, () => {
      const secret = "whsec_" + Buffer.alloc(32, 7).toString("base64");
      const config = WebhookConfig.parse({ verification: { preset } });
      const script = sampleRequest({
        url: "http://localhost/api/hooks/x",
        config,
        secret,
        body: '{"a":1}',
      });
      const sent = runSampleScript(script);
      expect(sent.body).toBe('{"a":1}');
      const verdict = verifySignature({
        verification: config.verification,
        secrets: [secret],
        headers: sent.headers,
        body: Buffer.from(sent.body!),
        now: new Date(),
      });
      expect(verdict).toMatchObject({ ok: true });
    });
  }
});
