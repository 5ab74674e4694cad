/**
 * tRPC input that fails its schema is refused with a message that names the limit or the form
 * expected, and says what was sent — never zod's bare "Invalid input" or "Too big: expected …".
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/db/testing";
import { ValidationError } from "../errors";
import { createWorkspaceFixture, type WorkspaceFixture } from "../testing/harness";
import { trpcRefusal as refusal } from "../testing/trpc";
import { createCaller } from "./root";

let t: TestDb;
let fx: WorkspaceFixture;
beforeAll(async () => {
  t = await createTestDb("inputmsg");
  fx = await createWorkspaceFixture(t.db);
});
afterAll(async () => {
  await t?.close();
});

describe("tRPC input messages", () => {
  it("a string past its cap names the cap and the length sent", async () => {
    const caller = createCaller({ svc: fx.ctx("editor") });
    const e = await refusal(caller.workflow.create({ name: "x".repeat(201) }));
    expect(e.code).toBe("BAD_REQUEST");
    expect(e.message).toBe(
      "Input is invalid at name: Name is too long: must be at most 200 characters (got 201)",
    );
    // The issues travel with the error for forms (the formatter puts them in data.issues).
    expect(e.cause).toBeInstanceOf(ValidationError);
    expect((e.cause as ValidationError).issues).toEqual([
      { path: ["name"], message: "Name is too long: must be at most 200 characters (got 201)" },
    ]);
  });

  it("an array past its cap and a wrong type say what was sent", async () => {
    const caller = createCaller({ svc: fx.ctx("viewer") });
    const tooMany = await refusal(
      caller.run.list({ status: Array.from({ length: 9 }, () => "queued" as const) }),
    );
    expect(tooMany.message).toBe("Input is invalid at status: must have at most 8 items (got 9)");
    const wrong = await refusal(caller.run.list({ limit: "ten" as unknown as number }));
    expect(wrong.message).toBe("Input is invalid at limit: expected number, got a string");
    expect(wrong.message).not.toMatch(/Invalid input/);
  });
});
