import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, users } from "./schema";
import { execRows } from "./client";
import { pgError } from "./errors";
import { createTestDb, type TestDb } from "./testing";

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb("db");
});
afterAll(async () => {
  await t?.close();
});

describe("database", () => {
  it("runs the same queries on this driver", async () => {
    await t.db.insert(users).values({ id: "usr_1", email: "a@example.com", name: "A" });
    const rows = await t.db.select().from(users).where(eq(users.email, "a@example.com"));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.createdAt).toBeInstanceOf(Date);
    const raw = await execRows<{ n: number }>(t.db, sql`select count(*)::int as n from users`);
    expect(raw[0]!.n).toBe(1);
  });

  it("keeps the audit log append-only", async () => {
    const [row] = await t.db
      .insert(auditEvents)
      .values({ actorType: "system", action: "test.done" })
      .returning();
    const update = await t.db
      .update(auditEvents)
      .set({ action: "x" })
      .where(eq(auditEvents.id, row!.id))
      .catch((e: unknown) => e);
    expect(pgError(update)?.message).toMatch(/append-only/);
    const del = await t.db
      .delete(auditEvents)
      .where(eq(auditEvents.id, row!.id))
      .catch((e: unknown) => e);
    expect(pgError(del)?.message).toMatch(/append-only/);
  });
});
