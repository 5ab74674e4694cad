import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/db/testing";
import { REDACTED_KEY_VALUE } from "@/lib/redact";
import { ForbiddenError, ValidationError } from "../../errors";
import { createWorkspaceFixture, makeCtx, type WorkspaceFixture } from "../../testing/harness";
import { createApiToken } from "../api-tokens/create-api-token";
import { createSecret } from "../secrets/create-secret";
import { recordAudit } from "./record-audit";
import { listAudit } from "./list-audit";

let t: TestDb;
let fx: WorkspaceFixture;
let other: WorkspaceFixture;
const T0 = Date.parse("2026-01-01T00:00:00.000Z");
const at = (minutes: number) => new Date(T0 + minutes * 60_000);

/** One audit row written the way services write them, at a chosen time. */
async function record(
  f: WorkspaceFixture,
  minutes: number,
  action: string,
  extra: { targetType?: string; targetId?: string; data?: Record<string, unknown> } = {},
) {
  const ctx = { ...f.ctx("owner"), now: () => at(minutes) };
  await t.db.transaction((tx) => recordAudit(tx, ctx, { action, ...extra }));
}

beforeAll(async () => {
  t = await createTestDb("auditlist");
  fx = await createWorkspaceFixture(t.db, "Audit");
  other = await createWorkspaceFixture(t.db, "Elsewhere");
  // Five rows at the same instant exercise the id tie-break of the keyset.
  for (let i = 0; i < 5; i++)
    await record(fx, 10, "workflow.created", { targetType: "workflow", targetId: `wf_${i}` });
  await record(fx, 20, "secret.updated", { targetType: "secret", targetId: "API_KEY" });
  await record(fx, 30, "member.role_changed", { targetType: "user", targetId: "usr_x" });
  await record(other, 15, "secret.updated", { targetType: "secret", targetId: "API_KEY" });
});
afterAll(async () => {
  await t?.close();
});

/** Rows of the fixed 2026-01-01 window only; services in other tests write at the real now. */
const window = { from: at(0), to: at(60) };

describe("listAudit", () => {
  it("refuses editors and answers admins, newest first, only for their workspace", async () => {
    await expect(listAudit({ ctx: fx.ctx("editor"), input: {} })).rejects.toThrow(ForbiddenError);
    await expect(listAudit({ ctx: fx.ctx("viewer"), input: {} })).rejects.toThrow(ForbiddenError);
    const page = await listAudit({ ctx: fx.ctx("admin"), input: window });
    expect(page.items.map((e) => e.action)).toEqual([
      "member.role_changed",
      "secret.updated",
      ...Array(5).fill("workflow.created"),
    ]);
    expect(page.items[0]).toMatchObject({
      actorType: "user",
      actorId: fx.members.owner,
      actorName: "Audit owner",
      targetType: "user",
      targetId: "usr_x",
      createdAt: at(30),
    });
    const theirs = await listAudit({ ctx: other.ctx("admin"), input: window });
    expect(theirs.items.map((e) => e.targetId)).toEqual(["API_KEY"]);
  });

  it("filters by actor, action (exact or prefix), target and date range", async () => {
    const list = (input: object) =>
      listAudit({ ctx: fx.ctx("owner"), input: { ...window, ...input } }).then((p) =>
        p.items.map((e) => e.action),
      );
    expect(await list({ action: "secret.updated" })).toEqual(["secret.updated"]);
    expect(await list({ action: "member.*" })).toEqual(["member.role_changed"]);
    expect(await list({ action: "secret" })).toEqual([]);
    expect(await list({ targetType: "workflow", targetId: "wf_3" })).toEqual(["workflow.created"]);
    expect(await list({ from: at(15), to: at(25) })).toEqual(["secret.updated"]);
    expect(await list({ actorType: "token" })).toEqual([]);
    expect(await list({ actorType: "user", actorId: fx.members.owner })).toHaveLength(7);
    expect(await list({ actorId: fx.members.admin })).toEqual([]);
  });

  it("pages by (created_at, id) without gaps or repeats, also across equal timestamps", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await listAudit({
        ctx: fx.ctx("admin"),
        input: { ...window, limit: 2, cursor },
      });
      seen.push(...page.items.map((e) => `${e.action}:${e.targetId}`));
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(4);
    expect(seen).toHaveLength(7);
    expect(new Set(seen).size).toBe(7);
    expect(seen.slice(2)).toEqual(
      ["wf_4", "wf_3", "wf_2", "wf_1", "wf_0"].map((id) => `workflow.created:${id}`),
    );
  });

  it("refuses unknown filters and forged cursors, naming the culprit", async () => {
    await expect(
      listAudit({ ctx: fx.ctx("admin"), input: { workspaceId: other.workspaceId } }),
    ).rejects.toThrow(ValidationError);
    await expect(
      listAudit({ ctx: fx.ctx("admin"), input: { cursor: "yesterday|1" } }),
    ).rejects.toThrow(/cursor/);
    await expect(listAudit({ ctx: fx.ctx("admin"), input: { action: "a%" } })).rejects.toThrow(
      ValidationError,
    );
  });

  it("names token actors and never shows secret values", async () => {
    const value = "sk-live-do-not-show-0123";
    await createSecret({ ctx: fx.ctx("admin"), input: { name: "SHOWN_NAME", value } });
    const tok = await createApiToken({
      ctx: fx.ctx("owner"),
      input: { name: "ci", role: "admin" },
    });
    const tokenCtx = makeCtx(
      t.db,
      { type: "token", tokenId: tok.id, userId: fx.members.owner },
      { id: fx.workspaceId, role: "admin" },
    );
    // A caller that wrongly put a value in details: the list still does not show it.
    await t.db.transaction((tx) =>
      recordAudit(tx, tokenCtx, {
        action: "secret.updated",
        targetType: "secret",
        targetId: "SHOWN_NAME",
        data: { name: "SHOWN_NAME", value, nested: { password: value } },
      }),
    );
    const page = await listAudit({ ctx: fx.ctx("admin"), input: { targetId: "SHOWN_NAME" } });
    expect(page.items.map((e) => e.action)).toEqual(["secret.updated", "secret.created"]);
    expect(page.items[0]).toMatchObject({
      actorType: "token",
      actorId: tok.id,
      actorName: "ci",
      details: {
        name: "SHOWN_NAME",
        value: REDACTED_KEY_VALUE,
        nested: { password: REDACTED_KEY_VALUE },
      },
    });
    expect(JSON.stringify(page)).not.toContain(value);
  });
});
