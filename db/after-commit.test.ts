import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { afterCommit } from "./after-commit";
import { execRows } from "./client";
import { createTestDb, type TestDb } from "./testing";

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb("aftercommit");
  await db.db.execute(sql`create table ac_probe (id int primary key)`);
});
afterAll(async () => {
  await db?.close();
});

const count = async () =>
  Number(
    (await execRows<{ n: number }>(db.db, sql`select count(*)::int as n from ac_probe`))[0]!.n,
  );

describe("afterCommit", () => {
  it("runs hooks once the outermost transaction committed, with its writes visible to others", async () => {
    const seen: number[] = [];
    let during = -1;
    await db.db.transaction(async (tx) => {
      await tx.execute(sql`insert into ac_probe values (1)`);
      afterCommit(tx, () => void count().then((n) => seen.push(n)));
      during = seen.length;
    });
    expect(during).toBe(0);
    await expect.poll(() => seen).toEqual([1]);
  });

  it("never runs them on rollback, nor those of a savepoint that rolled back", async () => {
    const ran: string[] = [];
    await expect(
      db.db.transaction(async (tx) => {
        afterCommit(tx, () => ran.push("outer"));
        throw new Error("no");
      }),
    ).rejects.toThrow("no");
    await db.db.transaction(async (tx) => {
      await tx
        .transaction(async (sp) => {
          afterCommit(sp, () => ran.push("rolled back savepoint"));
          throw new Error("sp");
        })
        .catch(() => undefined);
      await tx.transaction(async (sp) => {
        afterCommit(sp, () => ran.push("released savepoint"));
      });
      expect(ran).toEqual([]);
    });
    expect(ran).toEqual(["released savepoint"]);
  });
});
