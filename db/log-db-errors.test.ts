/**
 * Database errors reach the logs with a reference, the statement's name and its field names only:
 * never a parameter value, the row the driver's detail quotes, or the message that echoes input.
 * Real driver errors (PGlite and postgres.js, both wrapped by Drizzle), not hand-made ones.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createLogger, logWithRef } from "@/lib/log";
import { users } from "./schema";
import { createTestDb, type TestDb } from "./testing";

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb("logdberr");
});
afterAll(async () => {
  await t?.close();
});

async function captured(fn: () => Promise<void>): Promise<string> {
  const lines: string[] = [];
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    await fn();
  } finally {
    spy.mockRestore();
  }
  return lines.join("");
}

describe("database errors in logs", () => {
  it("a unique violation: statement, fields and constraint, no email, hash or name", async () => {
    const row = {
      id: "usr_a",
      email: "ada.lovelace@example.com",
      name: "Ada Lovelace",
      passwordHash: "scrypt$sk-live-SECRET-0123456789",
    };
    await t.db.insert(users).values(row);
    const err = await t.db
      .insert(users)
      .values({ ...row, id: "usr_b" })
      .then(() => null)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    // The raw error does carry the values (Drizzle's message lists the params)…
    expect(String((err as Error).message)).toContain("ada.lovelace@example.com");

    let ref = "";
    const out = await captured(async () => {
      ref = logWithRef(createLogger({ test: "db" }), "request failed", err);
    });
    // …the log line does not.
    for (const secret of ["ada.lovelace", "Ada Lovelace", "SECRET", "usr_b"])
      expect(out).not.toContain(secret);
    const rec = JSON.parse(out.trim()) as { ref: string; err: Record<string, unknown> };
    expect(rec.ref).toBe(ref);
    expect(ref).toMatch(/^ref_/);
    expect(rec.err).toMatchObject({
      statement: "insert users",
      fields: expect.arrayContaining(["email", "password_hash"]),
      cause: expect.objectContaining({ code: "23505" }),
    });
  });

  it("a value the column type refuses (the driver's message quotes it) is not echoed", async () => {
    const err = await t.db
      .execute(`select 'not-a-number-4111111111111111'::int as n`)
      .then(() => null)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    const out = await captured(async () => {
      createLogger().error("query failed", { err });
    });
    expect(out).not.toContain("4111111111111111");
    expect(JSON.parse(out.trim()).err.cause).toMatchObject({ code: "22P02" });
  });
});
