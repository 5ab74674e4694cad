import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, secrets } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import { secretVariants } from "@/lib/redact";
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from "../../errors";
import { SecretDecryptionError } from "../../secrets/crypto";
import { createWorkspaceFixture, testKeys, type WorkspaceFixture } from "../../testing/harness";
import { updateLlmIntegration } from "../settings/update-llm-integration";
import { createSecret } from "./create-secret";
import { deleteSecret } from "./delete-secret";
import { listSecrets } from "./list-secrets";
import { MissingSecretsError, resolveSecrets } from "./resolve-secrets";
import { updateSecret } from "./update-secret";

let t: TestDb;
let fx: WorkspaceFixture;
beforeAll(async () => {
  t = await createTestDb("secrets");
  fx = await createWorkspaceFixture(t.db, "Secrets");
});
afterAll(async () => {
  await t?.close();
});

const VALUE = "sk-live-0123456789abcdef+/=";

/** No form of the value may appear in this text. */
function expectNoTraceOf(value: string, text: string) {
  for (const form of secretVariants(value)) expect(text).not.toContain(form);
}

async function auditFor(name: string) {
  return t.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.workspaceId, fx.workspaceId), eq(auditEvents.targetId, name)));
}

describe("secrets", () => {
  it("stores only ciphertext, answers without the value and audits without it", async () => {
    const created = await createSecret({
      ctx: fx.ctx("admin"),
      input: { name: "API_TOKEN", value: VALUE },
    });
    expect(created).toEqual({
      name: "API_TOKEN",
      createdAt: expect.any(Date),
      updatedAt: expect.any(Date),
    });
    const [row] = await t.db.select().from(secrets).where(eq(secrets.name, "API_TOKEN"));
    expect(row).toMatchObject({
      workspaceId: fx.workspaceId,
      keyVersion: 1,
      createdBy: fx.members.admin,
    });
    expectNoTraceOf(VALUE, JSON.stringify(row));
    const audit = await auditFor("API_TOKEN");
    expect(audit.map((a) => a.action)).toEqual(["secret.created"]);
    expect(audit[0]!.data).toEqual({ name: "API_TOKEN" });
    expectNoTraceOf(VALUE, JSON.stringify(audit));
    expect(await resolveSecrets(t.db, testKeys, fx.workspaceId, ["API_TOKEN"])).toEqual({
      API_TOKEN: VALUE,
    });
  });

  it("lists names and history for editors, never values; viewers and approvers cannot list", async () => {
    const list = await listSecrets({ ctx: fx.ctx("editor") });
    expect(list).toEqual([
      expect.objectContaining({
        name: "API_TOKEN",
        createdByName: "Secrets admin",
        updatedByName: "Secrets admin",
        usedBy: [],
      }),
    ]);
    expectNoTraceOf(VALUE, JSON.stringify(list));
    await expect(listSecrets({ ctx: fx.ctx("approver") })).rejects.toBeInstanceOf(ForbiddenError);
    await expect(listSecrets({ ctx: fx.ctx("viewer") })).rejects.toBeInstanceOf(ForbiddenError);
  });

  it("only admins create, update and delete", async () => {
    for (const role of ["viewer", "approver", "editor"] as const) {
      await expect(
        createSecret({ ctx: fx.ctx(role), input: { name: "X_TOKEN", value: "1234" } }),
      ).rejects.toBeInstanceOf(ForbiddenError);
      await expect(
        updateSecret({ ctx: fx.ctx(role), input: { name: "API_TOKEN", value: "1234" } }),
      ).rejects.toBeInstanceOf(ForbiddenError);
      await expect(
        deleteSecret({ ctx: fx.ctx(role), input: { name: "API_TOKEN" } }),
      ).rejects.toBeInstanceOf(ForbiddenError);
    }
  });

  it("validates names and values", async () => {
    const bad = [
      { name: "lower_case", value: "1234" },
      { name: "9LIVES", value: "1234" },
      { name: "HAS-DASH", value: "1234" },
      { name: "SHORT", value: "abc" },
      { name: "HUGE", value: "x".repeat(65_537) },
      { name: "HUGE_UTF8", value: "é".repeat(40_000) },
    ];
    for (const input of bad) {
      await expect(createSecret({ ctx: fx.ctx("owner"), input })).rejects.toBeInstanceOf(
        ValidationError,
      );
    }
    const ok = await createSecret({
      ctx: fx.ctx("owner"),
      input: { name: "MAX_SIZE", value: "x".repeat(65_536) },
    });
    expect(ok.name).toBe("MAX_SIZE");
  });

  it("refuses a duplicate name", async () => {
    await expect(
      createSecret({ ctx: fx.ctx("admin"), input: { name: "API_TOKEN", value: "another-1" } }),
    ).rejects.toBeInstanceOf(ConflictError);
  });

  it("updates the value with a fresh IV and records who changed it", async () => {
    const [before] = await t.db.select().from(secrets).where(eq(secrets.name, "API_TOKEN"));
    await updateSecret({
      ctx: fx.ctx("owner"),
      input: { name: "API_TOKEN", value: "rotated-value-999" },
    });
    const [after] = await t.db.select().from(secrets).where(eq(secrets.name, "API_TOKEN"));
    expect(after!.iv).not.toBe(before!.iv);
    expect(after!.updatedBy).toBe(fx.members.owner);
    expect(after!.createdBy).toBe(fx.members.admin);
    expect(await resolveSecrets(t.db, testKeys, fx.workspaceId, ["API_TOKEN"])).toEqual({
      API_TOKEN: "rotated-value-999",
    });
    const audit = await auditFor("API_TOKEN");
    expect(audit.map((a) => a.action)).toEqual(["secret.created", "secret.updated"]);
    expectNoTraceOf("rotated-value-999", JSON.stringify(audit));
    await expect(
      updateSecret({ ctx: fx.ctx("owner"), input: { name: "NOPE_NOPE", value: "1234" } }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  it("resolves only the workspace's own secrets and names every missing one", async () => {
    const other = await createWorkspaceFixture(t.db, "OtherSecrets");
    await createSecret({
      ctx: other.ctx("owner"),
      input: { name: "ONLY_THERE", value: "other-value" },
    });
    const err = await resolveSecrets(t.db, testKeys, fx.workspaceId, [
      "API_TOKEN",
      "ONLY_THERE",
      "ALSO_MISSING",
    ]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MissingSecretsError);
    expect((err as MissingSecretsError).names).toEqual(["ONLY_THERE", "ALSO_MISSING"]);
    expect((err as Error).message).toMatch(/"ONLY_THERE", "ALSO_MISSING" do not exist/);
    expect(await resolveSecrets(t.db, testKeys, fx.workspaceId, [])).toEqual({});
  });

  it("detects a ciphertext moved to another row (AAD)", async () => {
    await createSecret({ ctx: fx.ctx("owner"), input: { name: "VICTIM", value: "victim-value" } });
    // Copy API_TOKEN's ciphertext over VICTIM's: decryption must fail rather than return it.
    await t.db.execute(sql`
      update secrets set ciphertext = src.ciphertext, iv = src.iv, auth_tag = src.auth_tag
      from (select ciphertext, iv, auth_tag from secrets where name = 'API_TOKEN' and workspace_id = ${fx.workspaceId}) src
      where secrets.name = 'VICTIM' and secrets.workspace_id = ${fx.workspaceId}`);
    await expect(resolveSecrets(t.db, testKeys, fx.workspaceId, ["VICTIM"])).rejects.toBeInstanceOf(
      SecretDecryptionError,
    );
  });

  it("refuses to delete a secret an integration uses, deletes otherwise, and audits", async () => {
    await createSecret({
      ctx: fx.ctx("owner"),
      input: { name: "LLM_KEY", value: "llm-key-value" },
    });
    await updateLlmIntegration({
      ctx: fx.ctx("admin"),
      input: {
        llm: { baseUrl: "https://llm.example.com/v1", model: "m", apiKeySecret: "LLM_KEY" },
      },
    });
    expect(
      (await listSecrets({ ctx: fx.ctx("admin") })).find((s) => s.name === "LLM_KEY")?.usedBy,
    ).toEqual(["llm"]);
    await expect(
      deleteSecret({ ctx: fx.ctx("admin"), input: { name: "LLM_KEY" } }),
    ).rejects.toThrow(/used by the LLM endpoint integration/);
    await deleteSecret({ ctx: fx.ctx("admin"), input: { name: "VICTIM" } });
    await expect(resolveSecrets(t.db, testKeys, fx.workspaceId, ["VICTIM"])).rejects.toBeInstanceOf(
      MissingSecretsError,
    );
    expect((await auditFor("VICTIM")).map((a) => a.action)).toEqual([
      "secret.created",
      "secret.deleted",
    ]);
    await expect(
      deleteSecret({ ctx: fx.ctx("admin"), input: { name: "VICTIM" } }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  it("the database itself refuses malformed names", async () => {
    await expect(
      t.db.insert(secrets).values({
        id: "sec_bad",
        workspaceId: fx.workspaceId,
        name: "bad name",
        ciphertext: "",
        iv: "",
        authTag: "",
        keyVersion: 1,
      }),
    ).rejects.toThrow();
  });
});
