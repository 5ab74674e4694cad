/**
 * Alert settings through their service verbs: who may read and change them (roles, and never
 * another workspace's workflows), what is refused with a reason (a handler naming itself, a
 * missing secret, a workflow of another workspace), and the audit rows.
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import { ForbiddenError, NotFoundError, ValidationError } from "../../errors";
import { createWorkspaceFixture, type WorkspaceFixture } from "../../testing/harness";
import { createSecret } from "../secrets/create-secret";
import { createWorkflow } from "../workflows/create-workflow";
import { getWorkflowAlerts } from "./get-workflow-alerts";
import { getWorkspaceAlerts } from "./get-workspace-alerts";
import { listAlerts } from "./list-alerts";
import { updateWorkflowAlerts } from "./update-workflow-alerts";
import { updateWorkspaceAlerts } from "./update-workspace-alerts";

let t: TestDb;
let a: WorkspaceFixture;
let b: WorkspaceFixture;
let wfA: string;
let handlerA: string;
let wfB: string;
beforeAll(async () => {
  t = await createTestDb("alert-settings");
  a = await createWorkspaceFixture(t.db, "AlertsA");
  b = await createWorkspaceFixture(t.db, "AlertsB");
  wfA = (await createWorkflow({ ctx: a.ctx("editor"), input: { name: "Main" } })).id;
  handlerA = (await createWorkflow({ ctx: a.ctx("editor"), input: { name: "Handler" } })).id;
  wfB = (await createWorkflow({ ctx: b.ctx("editor"), input: { name: "Other" } })).id;
  await createSecret({
    ctx: a.ctx("admin"),
    input: { name: "SLACK_URL", value: "https://hooks.example/x" },
  });
});
afterAll(async () => {
  await t?.close();
});

describe("workspace alert defaults", () => {
  it("admins set them; editors and viewers read them but may not change them", async () => {
    expect(await getWorkspaceAlerts({ ctx: a.ctx("viewer") })).toEqual({
      channels: [],
      windowMinutes: 60,
      gateAgeHours: 24,
      rejectThreshold: 10,
    });
    for (const role of ["viewer", "editor"] as const)
      await expect(
        updateWorkspaceAlerts({ ctx: a.ctx(role), input: { channels: [] } }),
      ).rejects.toBeInstanceOf(ForbiddenError);
    const input = {
      channels: [
        { kind: "slack", secret: "SLACK_URL" },
        { kind: "email", to: "ops@example.com" },
      ],
      windowMinutes: 30,
      gateAgeHours: null,
      rejectThreshold: 5,
    };
    await updateWorkspaceAlerts({ ctx: a.ctx("admin"), input });
    expect(await getWorkspaceAlerts({ ctx: a.ctx("editor") })).toEqual(input);
    // Another workspace keeps its own defaults.
    expect((await getWorkspaceAlerts({ ctx: b.ctx("admin") })).channels).toEqual([]);
    const [audit] = await t.db
      .select()
      .from(auditEvents)
      .where(
        and(
          eq(auditEvents.workspaceId, a.workspaceId),
          eq(auditEvents.action, "workspace.alerts_updated"),
        ),
      );
    expect(audit?.data).toMatchObject({ after: { windowMinutes: 30 } });
    expect(JSON.stringify(audit)).not.toContain("hooks.example");
  });

  it("refuses a channel naming a missing secret, and malformed channels, saying where", async () => {
    await expect(
      updateWorkspaceAlerts({
        ctx: a.ctx("admin"),
        input: { channels: [{ kind: "slack", secret: "NOPE" }] },
      }),
    ).rejects.toThrow(/Secret NOPE does not exist/);
    const bad = await updateWorkspaceAlerts({
      ctx: a.ctx("admin"),
      input: { channels: [{ kind: "webhook" }, { kind: "email", to: "not-an-address" }] },
    }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    expect(JSON.stringify((bad as ValidationError).details)).toContain("channels");
  });
});

describe("workflow alert settings", () => {
  it("editors set channels and an error workflow; viewers read them", async () => {
    await expect(
      updateWorkflowAlerts({
        ctx: a.ctx("viewer"),
        input: { workflowId: wfA, channels: null, errorWorkflowId: handlerA },
      }),
    ).rejects.toBeInstanceOf(ForbiddenError);
    const saved = await updateWorkflowAlerts({
      ctx: a.ctx("editor"),
      input: {
        workflowId: wfA,
        channels: [{ kind: "webhook", url: "https://alerts.example/in" }],
        errorWorkflowId: handlerA,
      },
    });
    expect(saved).toMatchObject({
      channels: [{ kind: "webhook", url: "https://alerts.example/in" }],
      errorWorkflowId: handlerA,
    });
    const read = await getWorkflowAlerts({ ctx: a.ctx("viewer"), input: { workflowId: wfA } });
    expect(read.effectiveChannels).toEqual(saved.channels);
    // null: back to the workspace's channels.
    const inherited = await updateWorkflowAlerts({
      ctx: a.ctx("editor"),
      input: { workflowId: wfA, channels: null, errorWorkflowId: null },
    });
    expect(inherited.effectiveChannels).toEqual(inherited.workspaceChannels);
  });

  it("refuses a workflow as its own error workflow, and workflows of another workspace", async () => {
    await expect(
      updateWorkflowAlerts({
        ctx: a.ctx("editor"),
        input: { workflowId: wfA, channels: null, errorWorkflowId: wfA },
      }),
    ).rejects.toThrow(/cannot be its own error workflow/);
    await expect(
      updateWorkflowAlerts({
        ctx: a.ctx("editor"),
        input: { workflowId: wfA, channels: null, errorWorkflowId: wfB },
      }),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(
      updateWorkflowAlerts({
        ctx: a.ctx("admin"),
        input: { workflowId: wfB, channels: null, errorWorkflowId: null },
      }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      getWorkflowAlerts({ ctx: a.ctx("admin"), input: { workflowId: wfB } }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  it("lists only the workspace's own alerts", async () => {
    expect(await listAlerts({ ctx: b.ctx("viewer"), input: {} })).toEqual({ alerts: [] });
    await expect(listAlerts({ ctx: a.ctx("viewer"), input: { limit: 0 } })).rejects.toBeInstanceOf(
      ValidationError,
    );
  });
});
