/**
 * Issue 25 items 3–4 through the tRPC procedures: names and free text that reach text columns are
 * refused with BAD_REQUEST naming the field when they hold NUL or other control characters (an
 * import hid a NUL from the door check inside its JSON or YAML text: a 500), bidi overrides or
 * zero-width characters, or nothing visible; and messages quote at most ~200 characters of what
 * was sent.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { triggers, workflows, workspaces } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import { createWorkspaceFixture, type WorkspaceFixture } from "../testing/harness";
import { trpcRefusal as refusal } from "../testing/trpc";
import { createCaller } from "./root";

let t: TestDb;
let fx: WorkspaceFixture;
beforeAll(async () => {
  t = await createTestDb("nametext");
  fx = await createWorkspaceFixture(t.db, "Names");
});
afterAll(async () => {
  await t?.close();
});

const editor = () => createCaller({ svc: fx.ctx("editor") });
const definitionJson = (name: string, value: unknown = 1) =>
  JSON.stringify({
    schemaVersion: 1,
    name,
    steps: [{ id: "a", type: "transform", config: { value } }],
  });
const workflowNames = async () =>
  (
    await t.db
      .select({ name: workflows.name })
      .from(workflows)
      .where(eq(workflows.workspaceId, fx.workspaceId))
  ).map((r) => r.name);

describe("NUL in text an import carries (item 3)", () => {
  it("a NUL escaped in the JSON of workflow.import → BAD_REQUEST at name, nothing written", async () => {
    // The door check sees only the text "\u0000" (six characters); JSON.parse makes it a NUL.
    const e = await refusal(
      editor().workflow.import({ content: definitionJson("Deploy\u0000x"), format: "json" }),
    );
    expect(e.code).toBe("BAD_REQUEST");
    expect(e.message).toMatch(/at name: .*NUL character/);
    expect(await workflowNames()).toEqual([]);
  });

  it("a NUL from a YAML escape, deep in a step's config → BAD_REQUEST naming the path", async () => {
    const yaml = [
      "schemaVersion: 1",
      "name: Deploy",
      "steps:",
      "  - id: a",
      "    type: transform",
      '    config: { value: { note: "bad \\0 byte" } }',
    ].join("\n");
    const e = await refusal(editor().workflow.import({ content: yaml, format: "yaml" }));
    expect(e.code).toBe("BAD_REQUEST");
    expect(e.message).toContain("steps.0.config.value.note");
    expect(await workflowNames()).toEqual([]);
  });

  it("other control characters in names and descriptions are refused; tab and newline in a description are not", async () => {
    const bell = await refusal(editor().workflow.create({ name: "Ding\u0007" }));
    expect(bell.message).toMatch(/at name: .*control character \(U\+0007\) at position 5/);
    const wf = await editor().workflow.create({ name: "Described" });
    const e = await refusal(
      editor().workflow.update({ workflowId: wf.id, description: "one\u001btwo" }),
    );
    expect(e.message).toMatch(/at description: .*control character \(U\+001B\)/);
    const ok = await editor().workflow.update({
      workflowId: wf.id,
      description: "line one\n\tline two\r\n",
    });
    expect(ok.description).toBe("line one\n\tline two\r\n");
  });
});

describe("invisible characters in names (item 4)", () => {
  it.each([
    ["a right-to-left override", "Pay\u202Eroll", "right-to-left override (U+202E), at position 4"],
    ["a left-to-right isolate", "\u2066Deploy", "left-to-right isolate (U+2066), at position 1"],
    ["a zero-width space", "De\u200Bploy", "zero-width space (U+200B), at position 3"],
    ["a zero-width joiner between ASCII letters", "ad\u200Dmin", "zero-width joiner (U+200D)"],
    ["a word joiner", "Deploy\u2060", "word joiner (U+2060)"],
    ["a BOM inside", "Dep\uFEFFloy", "zero-width no-break space (BOM) (U+FEFF), at position 4"],
  ])("a workflow name with %s is refused, naming it", async (_, name, named) => {
    const e = await refusal(editor().workflow.create({ name }));
    expect(e.code).toBe("BAD_REQUEST");
    expect(e.message).toContain(`at name: contains an invisible character, ${named}`);
  });

  it("a BOM or spaces at either end are trimmed away, like any whitespace", async () => {
    const wf = await editor().workflow.create({ name: "\uFEFF Trimmed \uFEFF" });
    expect(wf.name).toBe("Trimmed");
  });

  it("a name made only of invisible characters is refused as empty", async () => {
    const e = await refusal(editor().workflow.create({ name: "\u200B\u200C\u2060" }));
    expect(e.message).toMatch(/at name: has no visible characters/);
    const imported = await refusal(
      editor().workflow.import({ content: definitionJson("\u202E\u200B"), format: "json" }),
    );
    expect(imported.message).toMatch(/name: has no visible characters/);
  });

  it("joiners that do real work between visible non-ASCII characters are kept", async () => {
    // 👩‍💻 is 👩 U+200D 💻; "می‌خواهم" spells with U+200C.
    for (const name of ["Deploy 👩\u200D💻", "\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645"]) {
      const wf = await editor().workflow.create({ name });
      expect(wf.name).toBe(name);
    }
  });

  it("trigger names, workspace names and imported definition names follow the same rule", async () => {
    const wf = await editor().workflow.create({ name: "Hooked" });
    const trigger = await refusal(
      editor().trigger.create({
        kind: "webhook",
        workflowId: wf.id,
        name: "Orders\u202E",
        config: {},
      }),
    );
    expect(trigger.message).toMatch(/at name: .*right-to-left override/);
    expect(await t.db.select().from(triggers).where(eq(triggers.workflowId, wf.id))).toHaveLength(
      0,
    );

    const admin = createCaller({ svc: fx.ctx("admin") });
    const rename = await refusal(admin.workspace.rename({ name: "\u200BAcme" }));
    expect(rename.message).toMatch(/at name: .*zero-width space/);
    const create = await refusal(admin.workspace.create({ name: "\u2067\u2069" }));
    expect(create.message).toMatch(/at name: has no visible characters/);
    const [ws] = await t.db.select().from(workspaces).where(eq(workspaces.id, fx.workspaceId));
    expect(ws?.name).toBe("Names");

    const imported = await refusal(
      editor().workflow.import({ content: definitionJson("Ops\u202Dx"), format: "json" }),
    );
    expect(imported.message).toMatch(/name: contains an invisible character, left-to-right/);
  });
});

describe("messages quote at most ~200 characters of what was sent (item 4)", () => {
  it("a 10,000-character step id in an import", async () => {
    const id = "x".repeat(10_000);
    const content = JSON.stringify({
      schemaVersion: 1,
      name: "Long",
      steps: [
        { id, type: "transform", config: { value: 1 } },
        { id: "b", type: "transform", config: { value: 2 } },
      ],
      edges: [{ from: id, to: "b" }],
    });
    const e = await refusal(editor().workflow.import({ content, format: "json" }));
    expect(e.code).toBe("BAD_REQUEST");
    expect(e.message).toContain(`"${"x".repeat(199)}…"`);
    expect(e.message.length).toBeLessThan(600);
    const issues = (e.cause as { issues?: { message: string }[] }).issues ?? [];
    expect(issues.length).toBeGreaterThan(0);
    for (const issue of issues) expect(issue.message.length).toBeLessThan(600);
  });

  it("a 10,000-character unknown input name in a run's input", async () => {
    const wf = await editor().workflow.import({
      content: definitionJson("Inputs"),
      format: "json",
    });
    const e = await refusal(
      editor().run.start({ workflowId: wf.id, input: { ["k".repeat(10_000)]: 1 } }),
    );
    expect(e.message).toContain(`"${"k".repeat(199)}…"`);
    expect(e.message.length).toBeLessThan(600);
  });
});
