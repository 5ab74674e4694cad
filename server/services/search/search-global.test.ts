import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runs } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import { ValidationError } from "../../errors";
import { createWorkspaceFixture, type WorkspaceFixture } from "../../testing/harness";
import { startRun } from "../runs/start-run";
import { createWorkflow } from "../workflows/create-workflow";
import { searchGlobal } from "./search-global";

let t: TestDb;
let ws: WorkspaceFixture;
let other: WorkspaceFixture;
beforeAll(async () => {
  t = await createTestDb("search");
  ws = await createWorkspaceFixture(t.db, "Search");
  other = await createWorkspaceFixture(t.db, "SearchOther");
});
afterAll(async () => {
  await t?.close();
});

const search = (q: string, fx = ws) => searchGlobal({ ctx: fx.ctx("viewer"), input: { q } });

describe("searchGlobal", () => {
  it("finds workflows by part of the name, case-insensitively, exact and prefix matches first", async () => {
    const inside = await createWorkflow({
      ctx: ws.ctx("owner"),
      input: { name: "Nightly invoice sync" },
    });
    const prefix = await createWorkflow({
      ctx: ws.ctx("owner"),
      input: { name: "Invoice reminders" },
    });
    const exact = await createWorkflow({ ctx: ws.ctx("owner"), input: { name: "Invoice" } });
    await createWorkflow({ ctx: other.ctx("owner"), input: { name: "Invoice elsewhere" } });
    const r = await search("INVOICE");
    expect(r.workflows.map((w) => w.id)).toEqual([exact.id, prefix.id, inside.id]);
    expect((await search(inside.id)).workflows.map((w) => w.id)).toEqual([inside.id]);
    // LIKE wildcards match literally.
    expect((await search("%")).workflows).toEqual([]);
  });

  it("finds runs by id prefix or workflow name, never test runs or another workspace's", async () => {
    const wf = await createWorkflow({ ctx: ws.ctx("owner"), input: { name: "Payroll export" } });
    const run = await startRun({ ctx: ws.ctx("owner"), input: { workflowId: wf.id } });
    const test = await startRun({ ctx: ws.ctx("owner"), input: { workflowId: wf.id } });
    await t.db.update(runs).set({ isTest: true }).where(eq(runs.id, test.runId));
    const foreignWf = await createWorkflow({
      ctx: other.ctx("owner"),
      input: { name: "Payroll export" },
    });
    const foreign = await startRun({
      ctx: other.ctx("owner"),
      input: { workflowId: foreignWf.id },
    });

    expect((await search(run.runId)).runs.map((x) => x.id)).toEqual([run.runId]);
    expect((await search(run.runId.slice(0, -4).toUpperCase())).runs.map((x) => x.id)).toContain(
      run.runId,
    );
    const byName = await search("payroll");
    expect(byName.runs.map((x) => x.id)).toEqual([run.runId]);
    expect(byName.runs[0]!.workflowName).toBe("Payroll export");
    expect(JSON.stringify(await search(foreign.runId))).not.toContain(foreign.runId);
  });

  it("returns at most ten of each kind", async () => {
    for (let i = 0; i < 12; i++)
      await createWorkflow({ ctx: ws.ctx("owner"), input: { name: `Bulk ${i}` } });
    expect((await search("bulk")).workflows).toHaveLength(10);
  });

  it("refuses empty or oversized text with a message naming the field", async () => {
    await expect(search("   ")).rejects.toThrow(ValidationError);
    await expect(search("   ")).rejects.toThrow(/q/);
    await expect(search("x".repeat(201))).rejects.toThrow(ValidationError);
  });
});
