/**
 * Text Postgres cannot store (NUL, lone surrogates) is refused by every tRPC procedure with a 400
 * naming the field — before any service or the database sees it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workflows } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import { createWorkspaceFixture, type WorkspaceFixture } from "../testing/harness";
import { trpcRefusal as refusal } from "../testing/trpc";
import { createCaller } from "./root";

let t: TestDb;
let fx: WorkspaceFixture;
beforeAll(async () => {
  t = await createTestDb("storable");
  fx = await createWorkspaceFixture(t.db);
});
afterAll(async () => {
  await t?.close();
});

describe("unstorable text in tRPC input", () => {
  it("a NUL in a workflow name → BAD_REQUEST at name, nothing written", async () => {
    const caller = createCaller({ svc: fx.ctx("editor") });
    const e = await refusal(caller.workflow.create({ name: "Deploy\u0000" }));
    expect(e.code).toBe("BAD_REQUEST");
    expect(e.message).toMatch(/at name: .*NUL/);
    expect(await t.db.select().from(workflows)).toHaveLength(0);
  });

  it("a lone surrogate deep in a draft definition → BAD_REQUEST naming the path", async () => {
    const caller = createCaller({ svc: fx.ctx("editor") });
    const wf = await caller.workflow.create({ name: "Deploy" });
    const e = await refusal(
      caller.workflow.saveDraft({
        workflowId: wf.id,
        definition: {
          schemaVersion: 1,
          name: "Deploy",
          steps: [{ id: "a", type: "transform", config: { value: { note: "bad \uD83D" } } }],
        },
      }),
    );
    expect(e.code).toBe("BAD_REQUEST");
    expect(e.message).toContain("definition.steps.0.config.value.note");
    expect(e.message).toMatch(/surrogate/);
  });
});
