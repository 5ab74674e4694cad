import { and, count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, definitionContents, workspaces } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import { pgError } from "@/db/errors";
import { workflowVersions } from "@/db/schema";
import { ConflictError, NotFoundError, ValidationError } from "../../errors";
import { createWorkspaceFixture, type WorkspaceFixture } from "../../testing/harness";
import { compareVersions } from "./compare-versions";
import { createWorkflow } from "./create-workflow";
import { deleteWorkflow } from "./delete-workflow";
import { duplicateWorkflow } from "./duplicate-workflow";
import { exportWorkflow } from "./export-workflow";
import { getWorkflow } from "./get-workflow";
import { importWorkflow } from "./import-workflow";
import { listVersions } from "./list-versions";
import { listWorkflows } from "./list-workflows";
import { publishWorkflow } from "./publish-workflow";
import { rollbackWorkflow } from "./rollback-workflow";
import { saveDraft } from "./save-draft";
import { saveLayout } from "./save-layout";
import { updateWorkflow } from "./update-workflow";

let t: TestDb;
let ws: WorkspaceFixture;
beforeAll(async () => {
  t = await createTestDb("workflows");
  ws = await createWorkspaceFixture(t.db, "Wf");
});
afterAll(async () => {
  await t?.close();
});

const editor = () => ws.ctx("editor");

function transformDef(name: string, value: unknown) {
  return { schemaVersion: 1, name, steps: [{ id: "shape", type: "transform", config: { value } }] };
}

describe("create, read, list", () => {
  it("creates from a starter as version 1.0.0 and reads it by id and slug", async () => {
    const created = await createWorkflow({
      ctx: editor(),
      input: { name: "Release train", template: "release-train", tags: ["ops"] },
    });
    expect(created).toMatchObject({ slug: "release-train", version: "1.0.0" });
    const byId = await getWorkflow({ ctx: ws.ctx("viewer"), input: { workflowId: created.id } });
    const bySlug = await getWorkflow({ ctx: ws.ctx("viewer"), input: { slug: "release-train" } });
    expect(bySlug.id).toBe(byId.id);
    expect(byId.currentVersion?.version).toBe("1.0.0");
    expect(byId.currentVersion?.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(byId.hasDraftChanges).toBe(false);
    expect(byId.issues.filter((i) => i.severity === "error")).toEqual([]);
    const again = await createWorkflow({ ctx: editor(), input: { name: "Release train" } });
    expect(again.slug).toBe("release-train-2");
  });

  it("refuses unknown templates and viewers", async () => {
    await expect(
      createWorkflow({ ctx: editor(), input: { name: "X", template: "nope" } }),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(createWorkflow({ ctx: ws.ctx("viewer"), input: { name: "X" } })).rejects.toThrow(
      /editor role/,
    );
  });

  it("lists with search, filters and keyset pagination", async () => {
    const fx = await createWorkspaceFixture(t.db, "List");
    for (let i = 0; i < 5; i++)
      await createWorkflow({
        ctx: fx.ctx("editor"),
        input: { name: `Nightly job ${i}`, tags: i % 2 ? ["odd"] : [] },
      });
    await createWorkflow({ ctx: fx.ctx("editor"), input: { name: "Other thing" } });
    const all = await listWorkflows({ ctx: fx.ctx("viewer"), input: {} });
    expect(all.items).toHaveLength(6);
    expect(
      (await listWorkflows({ ctx: fx.ctx("viewer"), input: { search: "nightly" } })).items,
    ).toHaveLength(5);
    expect(
      (await listWorkflows({ ctx: fx.ctx("viewer"), input: { search: "100%_" } })).items,
    ).toHaveLength(0);
    expect(
      (await listWorkflows({ ctx: fx.ctx("viewer"), input: { tag: "odd" } })).items,
    ).toHaveLength(2);
    const page1 = await listWorkflows({ ctx: fx.ctx("viewer"), input: { limit: 4 } });
    expect(page1.items).toHaveLength(4);
    const page2 = await listWorkflows({
      ctx: fx.ctx("viewer"),
      input: { limit: 4, cursor: page1.nextCursor! },
    });
    expect(page2.items).toHaveLength(2);
    expect(new Set([...page1.items, ...page2.items].map((w) => w.id)).size).toBe(6);
    // Another workspace's workflows never appear.
    expect(
      (await listWorkflows({ ctx: ws.ctx("viewer"), input: { search: "nightly" } })).items,
    ).toHaveLength(0);
  });
});

describe("drafts and publishing", () => {
  it("saves any JSON as a draft, refuses stale revisions, and skips identical saves", async () => {
    const wf = await createWorkflow({ ctx: editor(), input: { name: "Drafty" } });
    const first = await getWorkflow({ ctx: editor(), input: { workflowId: wf.id } });
    const broken = { schemaVersion: 1, name: "Drafty", steps: [{ id: "Bad Id", type: "nope" }] };
    const saved = await saveDraft({
      ctx: editor(),
      input: { workflowId: wf.id, definition: broken, baseRevision: first.draftRevision },
    });
    expect(saved.changed).toBe(true);
    expect(saved.revision).toBe(first.draftRevision + 1);
    expect(saved.issues.length).toBeGreaterThan(0);
    const same = await saveDraft({
      ctx: editor(),
      input: { workflowId: wf.id, definition: broken, baseRevision: saved.revision },
    });
    expect(same).toMatchObject({ changed: false, revision: saved.revision });
    await expect(
      saveDraft({
        ctx: editor(),
        input: { workflowId: wf.id, definition: { x: 1 }, baseRevision: first.draftRevision },
      }),
    ).rejects.toBeInstanceOf(ConflictError);
    const after = await getWorkflow({ ctx: editor(), input: { workflowId: wf.id } });
    expect(after.hasDraftChanges).toBe(true);
    expect(after.draft).toEqual(broken);
  });

  it("refuses to publish an invalid draft, listing every issue with its path", async () => {
    const wf = await createWorkflow({ ctx: editor(), input: { name: "Invalid" } });
    await saveDraft({
      ctx: editor(),
      input: {
        workflowId: wf.id,
        definition: {
          schemaVersion: 1,
          name: "Invalid",
          steps: [
            { id: "a", type: "transform", config: { value: "{{ steps.ghost.output }}" } },
            { id: "a", type: "teleport" },
          ],
        },
      },
    });
    const err = (await publishWorkflow({ ctx: editor(), input: { workflowId: wf.id } }).catch(
      (e) => e,
    )) as ValidationError;
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.issues.length).toBeGreaterThanOrEqual(2);
    for (const i of err.issues) expect(Array.isArray(i.path)).toBe(true);
    expect(err.message).toMatch(/problem/);
  });

  it("publishes with semver bumps; identical content is a no-op that says so", async () => {
    const wf = await createWorkflow({ ctx: editor(), input: { name: "Bumps" } });
    expect((await publishWorkflow({ ctx: editor(), input: { workflowId: wf.id } })).status).toBe(
      "unchanged",
    );
    await saveDraft({
      ctx: editor(),
      input: { workflowId: wf.id, definition: transformDef("Bumps", 1) },
    });
    expect(
      await publishWorkflow({ ctx: editor(), input: { workflowId: wf.id, notes: "one" } }),
    ).toMatchObject({ status: "created", version: "1.0.1" });
    await saveDraft({
      ctx: editor(),
      input: { workflowId: wf.id, definition: transformDef("Bumps", 2) },
    });
    expect(
      (await publishWorkflow({ ctx: editor(), input: { workflowId: wf.id, bump: "minor" } }))
        .version,
    ).toBe("1.1.0");
    await saveDraft({
      ctx: editor(),
      input: { workflowId: wf.id, definition: transformDef("Bumps", 3) },
    });
    expect(
      (await publishWorkflow({ ctx: editor(), input: { workflowId: wf.id, bump: "major" } }))
        .version,
    ).toBe("2.0.0");
    // Key order and omitted defaults do not change the hash: re-publishing is a no-op.
    await saveDraft({
      ctx: editor(),
      input: {
        workflowId: wf.id,
        definition: {
          steps: [{ config: { value: 3 }, type: "transform", id: "shape" }],
          name: "Bumps",
          schemaVersion: 1,
          inputs: {},
        },
      },
    });
    expect((await publishWorkflow({ ctx: editor(), input: { workflowId: wf.id } })).status).toBe(
      "unchanged",
    );
    const versions = await listVersions({ ctx: ws.ctx("viewer"), input: { workflowId: wf.id } });
    expect(versions.map((v) => v.version)).toEqual(["2.0.0", "1.1.0", "1.0.1", "1.0.0"]);
    expect(versions[0]!.isCurrent).toBe(true);
    expect(versions[2]!.notes).toBe("one");
  });

  it("applies the workspace's forbidden step types on publish", async () => {
    const fx = await createWorkspaceFixture(t.db, "Policy");
    await t.db
      .update(workspaces)
      .set({ settings: { forbiddenStepTypes: ["emit_event"] } })
      .where(eq(workspaces.id, fx.workspaceId));
    await expect(
      createWorkflow({ ctx: fx.ctx("editor"), input: { name: "R", template: "release-train" } }),
    ).rejects.toThrow(/emit_event/);
  });

  it("serialises concurrent publishes: each gets its own version number", async () => {
    const wf = await createWorkflow({ ctx: editor(), input: { name: "Racy" } });
    await saveDraft({
      ctx: editor(),
      input: { workflowId: wf.id, definition: transformDef("Racy", "x") },
    });
    const results = await Promise.all(
      [1, 2, 3].map((n) =>
        publishWorkflow({ ctx: editor(), input: { workflowId: wf.id, notes: String(n) } }),
      ),
    );
    expect(results.filter((r) => r.status === "created")).toHaveLength(1);
    expect(results.filter((r) => r.status === "unchanged")).toHaveLength(2);
  });
});

describe("versions: compare, rollback, history", () => {
  it("compares two versions and rolls back as a new version with the old hash", async () => {
    const wf = await createWorkflow({ ctx: editor(), input: { name: "Rolly" } });
    await saveDraft({
      ctx: editor(),
      input: { workflowId: wf.id, definition: transformDef("Rolly", "v2") },
    });
    const v2 = await publishWorkflow({ ctx: editor(), input: { workflowId: wf.id } });
    const versions = await listVersions({ ctx: editor(), input: { workflowId: wf.id } });
    const v1 = versions.find((v) => v.version === "1.0.0")!;
    const cmp = await compareVersions({
      ctx: ws.ctx("viewer"),
      input: { workflowId: wf.id, from: v1.id, to: v2.versionId },
    });
    expect(cmp.diff?.isEmpty).toBe(false);
    expect(cmp.from.label).toBe("v1.0.0");
    expect(JSON.parse(cmp.to.json).steps[0].config.value).toBe("v2");

    const [{ n: contentsBefore } = { n: 0 }] = await t.db
      .select({ n: count() })
      .from(definitionContents)
      .where(eq(definitionContents.workspaceId, ws.workspaceId));
    const rb = await rollbackWorkflow({
      ctx: editor(),
      input: { workflowId: wf.id, versionId: v1.id },
    });
    expect(rb).toMatchObject({ version: "1.0.2", restored: "1.0.0", hash: v1.hash });
    const [{ n: contentsAfter } = { n: 0 }] = await t.db
      .select({ n: count() })
      .from(definitionContents)
      .where(eq(definitionContents.workspaceId, ws.workspaceId));
    expect(contentsAfter).toBe(contentsBefore);
    const now = await getWorkflow({ ctx: editor(), input: { workflowId: wf.id } });
    expect(now.currentVersion?.hash).toBe(v1.hash);
    expect(now.hasDraftChanges).toBe(false);
    // Already there (by id, or by an older version with the same content): 200, no new version.
    const versionsBefore = (await listVersions({ ctx: editor(), input: { workflowId: wf.id } }))
      .length;
    for (const input of [{ versionId: rb.versionId }, { versionId: v1.id }, { hash: v1.hash }])
      expect(
        await rollbackWorkflow({ ctx: editor(), input: { workflowId: wf.id, ...input } }),
      ).toEqual({
        alreadyAtVersion: true,
        version: "1.0.2",
        versionId: rb.versionId,
        hash: v1.hash,
      });
    expect(await listVersions({ ctx: editor(), input: { workflowId: wf.id } })).toHaveLength(
      versionsBefore,
    );
    // By hash: the version with that content (v2's), as a new version.
    const byHash = await rollbackWorkflow({
      ctx: editor(),
      input: { workflowId: wf.id, hash: v2.hash },
    });
    expect(byHash).toMatchObject({
      alreadyAtVersion: false,
      version: "1.0.3",
      restored: "1.0.1",
      hash: v2.hash,
    });
    await expect(
      rollbackWorkflow({
        ctx: editor(),
        input: { workflowId: wf.id, hash: `sha256:${"0".repeat(64)}` },
      }),
    ).rejects.toBeInstanceOf(NotFoundError);
    for (const [input, path] of [
      [{ hash: "sha256:nothex" }, "hash"],
      [{}, "versionId"],
      [{ versionId: v1.id, hash: v1.hash }, "hash"],
    ] as const) {
      const e = await rollbackWorkflow({
        ctx: editor(),
        input: { workflowId: wf.id, ...input },
      }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ValidationError);
      expect((e as ValidationError).details).toMatchObject({ issues: [{ path: [path] }] });
    }
    const audit = await t.db
      .select()
      .from(auditEvents)
      .where(
        and(eq(auditEvents.targetId, wf.id), eq(auditEvents.action, "workflow.version_rollback")),
      );
    // The two real rollbacks; the no-ops wrote nothing.
    expect(audit).toHaveLength(2);
    // History is append-only, in the database itself.
    const tamper = await t.db
      .update(workflowVersions)
      .set({ notes: "x" })
      .where(eq(workflowVersions.id, v1.id))
      .catch((e) => e);
    expect(pgError(tamper)?.message).toMatch(/append-only/);
  });

  it("keeps layout apart: saving positions never creates a version", async () => {
    const wf = await createWorkflow({ ctx: editor(), input: { name: "Layouty" } });
    await saveLayout({
      ctx: editor(),
      input: { workflowId: wf.id, layout: { positions: { done: { x: 10, y: 20 } } } },
    });
    expect((await publishWorkflow({ ctx: editor(), input: { workflowId: wf.id } })).status).toBe(
      "unchanged",
    );
    expect((await getWorkflow({ ctx: editor(), input: { workflowId: wf.id } })).layout).toEqual({
      positions: { done: { x: 10, y: 20 } },
    });
  });
});

describe("import, export, duplicate, update, delete", () => {
  it("imports YAML as a new workflow and JSON as a new version; bad text names the line", async () => {
    const yaml =
      "schemaVersion: 1\nname: From YAML\nsteps:\n  - id: hello\n    type: transform\n    config:\n      value: hi\n";
    const imported = await importWorkflow({ ctx: editor(), input: { content: yaml } });
    expect(imported).toMatchObject({ name: "From YAML", version: "1.0.0" });
    const v = await importWorkflow({
      ctx: editor(),
      input: { workflowId: imported.id, content: JSON.stringify(transformDef("From YAML", "new")) },
    });
    expect(v).toMatchObject({ version: "1.0.1", status: "created" });
    const bad = (await importWorkflow({
      ctx: editor(),
      input: { content: "name: x\n  bad: : indent\n" },
    }).catch((e) => e)) as ValidationError;
    expect(bad).toBeInstanceOf(ValidationError);
    expect(bad.issues[0]).toHaveProperty("line");
    const invalid = await importWorkflow({
      ctx: editor(),
      input: { content: '{"schemaVersion": 2}' },
    }).catch((e) => e);
    expect(invalid).toBeInstanceOf(ValidationError);

    const json = await exportWorkflow({
      ctx: ws.ctx("viewer"),
      input: { workflowId: imported.id },
    });
    expect(json.filename).toBe(`${imported.slug}-v1.0.1.json`);
    expect(JSON.parse(json.content).steps[0].config.value).toBe("new");
    const asYaml = await exportWorkflow({
      ctx: ws.ctx("viewer"),
      input: { workflowId: imported.id, format: "yaml", version: "draft" },
    });
    expect(asYaml.content).toContain("value: new");
  });

  it("duplicates, renames, re-slugs, tags, disables and deletes with confirmation", async () => {
    const wf = await createWorkflow({
      ctx: editor(),
      input: { name: "Original", template: "triage-branch" },
    });
    const copy = await duplicateWorkflow({ ctx: editor(), input: { workflowId: wf.id } });
    expect(copy.name).toBe("Original (copy)");
    expect(copy.version).toBe("1.0.0");
    const updated = await updateWorkflow({
      ctx: editor(),
      input: {
        workflowId: copy.id,
        name: "Copy",
        slug: "the-copy",
        tags: ["a", "a", "b"],
        isEnabled: false,
      },
    });
    expect(updated).toMatchObject({
      name: "Copy",
      slug: "the-copy",
      tags: ["a", "b"],
      isEnabled: false,
    });
    await expect(
      updateWorkflow({ ctx: editor(), input: { workflowId: wf.id, slug: "the-copy" } }),
    ).rejects.toBeInstanceOf(ConflictError);
    await expect(
      updateWorkflow({ ctx: editor(), input: { workflowId: wf.id, slug: "Not A Slug" } }),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(
      deleteWorkflow({ ctx: editor(), input: { workflowId: copy.id, confirmName: "copy" } }),
    ).rejects.toBeInstanceOf(ValidationError);
    await deleteWorkflow({ ctx: editor(), input: { workflowId: copy.id, confirmName: "Copy" } });
    await expect(
      getWorkflow({ ctx: editor(), input: { workflowId: copy.id } }),
    ).rejects.toBeInstanceOf(NotFoundError);
    // The slug is free again.
    await updateWorkflow({ ctx: editor(), input: { workflowId: wf.id, slug: "the-copy" } });
  });

  it("hides other workspaces' workflows behind NotFound", async () => {
    const other = await createWorkspaceFixture(t.db, "Else");
    const theirs = await createWorkflow({ ctx: other.ctx("editor"), input: { name: "Theirs" } });
    await expect(
      getWorkflow({ ctx: ws.ctx("owner"), input: { workflowId: theirs.id } }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      saveDraft({ ctx: ws.ctx("owner"), input: { workflowId: theirs.id, definition: {} } }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      publishWorkflow({ ctx: ws.ctx("owner"), input: { workflowId: theirs.id } }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });
});
