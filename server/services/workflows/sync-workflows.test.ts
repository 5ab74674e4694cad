/**
 * Declarative sync: a set of definitions keyed by slug is planned and applied as versions.
 *
 *   workspace before        set                    plan
 *   alpha  (v1.0.0, A)      alpha   (A)        →   unchanged
 *   beta   (v1.0.0, B)      beta    (B')       →   publish  (1.0.1, source import)
 *   gamma  (v1.0.0, C)      —                  →   would_delete (delete only with prune)
 *   —                       delta   (D)        →   create   (1.0.0)
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, workflows, workflowVersions } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import { ValidationError } from "../../errors";
import { createWorkspaceFixture, type WorkspaceFixture } from "../../testing/harness";
import { listWorkflows } from "./list-workflows";
import { syncWorkflows } from "./sync-workflows";

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb("sync");
});
afterAll(async () => {
  await t?.close();
});

const def = (slug: string, value: number) => ({
  slug,
  schemaVersion: 1,
  name: slug.toUpperCase(),
  steps: [{ id: "s", type: "transform", config: { value } }],
});

async function seeded(): Promise<WorkspaceFixture> {
  const fx = await createWorkspaceFixture(t.db, "Sync");
  await syncWorkflows({
    ctx: fx.ctx("editor"),
    input: { workflows: [def("alpha", 1), def("beta", 1), def("gamma", 1)] },
  });
  return fx;
}
const SET = [def("alpha", 1), def("beta", 2), def("delta", 1)];

async function slugsOf(fx: WorkspaceFixture) {
  const page = await listWorkflows({ ctx: fx.ctx("viewer"), input: { limit: 200 } });
  return page.items.map((w) => w.slug).sort();
}

describe("syncWorkflows", () => {
  it("dry run plans create / publish / unchanged / would_delete and writes nothing", async () => {
    const fx = await seeded();
    const audits = await t.db.$count(auditEvents, eq(auditEvents.workspaceId, fx.workspaceId));
    const r = await syncWorkflows({
      ctx: fx.ctx("editor"),
      input: { workflows: SET, dryRun: true },
    });
    expect(r).toMatchObject({ dryRun: true, applied: false });
    expect(r.plan.map((p) => [p.slug, p.action, p.fromVersion, p.version])).toEqual([
      ["alpha", "unchanged", "1.0.0", "1.0.0"],
      ["beta", "publish", "1.0.0", null],
      ["delta", "create", null, null],
      ["gamma", "would_delete", "1.0.0", null],
    ]);
    expect(r.summary).toEqual({ create: 1, publish: 1, unchanged: 1, would_delete: 1, delete: 0 });
    expect(await slugsOf(fx)).toEqual(["alpha", "beta", "gamma"]);
    expect(await t.db.$count(auditEvents, eq(auditEvents.workspaceId, fx.workspaceId))).toBe(
      audits,
    );
  });

  it("applies as versions with source import and keeps unlisted workflows without prune", async () => {
    const fx = await seeded();
    const r = await syncWorkflows({ ctx: fx.ctx("editor"), input: { workflows: SET } });
    expect(r.plan.map((p) => [p.slug, p.action, p.version])).toEqual([
      ["alpha", "unchanged", "1.0.0"],
      ["beta", "publish", "1.0.1"],
      ["delta", "create", "1.0.0"],
      ["gamma", "would_delete", null],
    ]);
    expect(await slugsOf(fx)).toEqual(["alpha", "beta", "delta", "gamma"]);
    const [beta] = await t.db
      .select()
      .from(workflows)
      .where(and(eq(workflows.workspaceId, fx.workspaceId), eq(workflows.slug, "beta")));
    const versions = await t.db
      .select({ version: workflowVersions.version, source: workflowVersions.source })
      .from(workflowVersions)
      .where(eq(workflowVersions.workflowId, beta!.id));
    expect(versions).toEqual(
      expect.arrayContaining([
        { version: "1.0.0", source: "import" },
        { version: "1.0.1", source: "import" },
      ]),
    );
    expect((beta!.draft as { steps: { config: { value: number } }[] }).steps[0]!.config.value).toBe(
      2,
    );
    // Idempotent: the same set again changes nothing.
    const again = await syncWorkflows({ ctx: fx.ctx("editor"), input: { workflows: SET } });
    expect(again.plan.filter((p) => p.action !== "unchanged").map((p) => p.action)).toEqual([
      "would_delete",
    ]);
  });

  it("deletes unlisted workflows only with prune: true", async () => {
    const fx = await seeded();
    const r = await syncWorkflows({
      ctx: fx.ctx("editor"),
      input: { workflows: SET, prune: true },
    });
    expect(r.plan.find((p) => p.slug === "gamma")).toMatchObject({ action: "delete" });
    expect(await slugsOf(fx)).toEqual(["alpha", "beta", "delta"]);
    const [audit] = await t.db
      .select()
      .from(auditEvents)
      .where(
        and(eq(auditEvents.workspaceId, fx.workspaceId), eq(auditEvents.action, "workflow.synced")),
      )
      .orderBy(auditEvents.createdAt);
    expect(audit).toBeDefined();
  });

  it("validates the whole set first: every issue under its item's path, nothing applied", async () => {
    const fx = await seeded();
    const bad = [
      def("alpha", 5),
      { slug: "broken", schemaVersion: 1, name: "B", steps: [{ id: "s", type: "nope" }] },
      def("alpha", 6),
      { slug: "Not A Slug", schemaVersion: 1, name: "C", steps: [] },
    ];
    const e1 = await syncWorkflows({ ctx: fx.ctx("editor"), input: { workflows: bad } }).catch(
      (e: unknown) => e,
    );
    expect(e1).toBeInstanceOf(ValidationError);
    expect((e1 as ValidationError).issues[0]!.path).toEqual(["workflows", 3, "slug"]);
    const e2 = (await syncWorkflows({
      ctx: fx.ctx("editor"),
      input: { workflows: bad.slice(0, 3) },
    }).catch((e: unknown) => e)) as ValidationError;
    expect(e2).toBeInstanceOf(ValidationError);
    expect(e2.issues.map((i) => i.path?.slice(0, 3))).toEqual(
      expect.arrayContaining([
        ["workflows", 2, "slug"],
        ["workflows", 1, "steps"],
      ]),
    );
    // Nothing was applied: alpha is still 1.0.0.
    const r = await syncWorkflows({
      ctx: fx.ctx("editor"),
      input: { workflows: [def("alpha", 1)], dryRun: true },
    });
    expect(r.plan[0]).toMatchObject({ slug: "alpha", action: "unchanged", version: "1.0.0" });
  });

  it("concurrent syncs of the same set decide once: one creates, the other finds it unchanged", async () => {
    const fx = await createWorkspaceFixture(t.db, "Race");
    const set = [def("raced", 1), def("raced-too", 2)];
    const results = await Promise.all(
      [0, 1].map(() => syncWorkflows({ ctx: fx.ctx("editor"), input: { workflows: set } })),
    );
    const actions = results.map((r) => r.plan.map((p) => p.action).join(",")).sort();
    expect(actions).toEqual(["create,create", "unchanged,unchanged"]);
    expect(await slugsOf(fx)).toEqual(["raced", "raced-too"]);
  });

  it("needs the editor role and never touches another workspace", async () => {
    const fx = await seeded();
    const other = await seeded();
    for (const role of ["viewer", "approver"] as const) {
      await expect(
        syncWorkflows({ ctx: fx.ctx(role), input: { workflows: [], dryRun: true } }),
      ).rejects.toMatchObject({ code: "FORBIDDEN" });
    }
    await syncWorkflows({ ctx: fx.ctx("admin"), input: { workflows: [], prune: true } });
    expect(await slugsOf(fx)).toEqual([]);
    expect(await slugsOf(other)).toEqual(["alpha", "beta", "gamma"]);
  });
});
