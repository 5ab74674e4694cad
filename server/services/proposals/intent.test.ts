/** Proposals from a natural-language intent, against a fake OpenAI-compatible server. */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaces } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import { ValidationError } from "../../errors";
import { startFakeOpenAi, type FakeOpenAi, type FakeReply } from "../../testing/fake-openai";
import { createWorkspaceFixture, type WorkspaceFixture } from "../../testing/harness";
import { createWorkflow } from "../workflows/create-workflow";
import { publishWorkflow } from "../workflows/publish-workflow";
import { saveDraft } from "../workflows/save-draft";
import { createProposal } from "./create-proposal";
import { getProposal } from "./get-proposal";

let t: TestDb;
let fx: WorkspaceFixture;
let fake: FakeOpenAi;
let replies: FakeReply[] = [];
beforeAll(async () => {
  t = await createTestDb("intent");
  fx = await createWorkspaceFixture(t.db, "Intent");
  fake = await startFakeOpenAi((_req, i) => replies[i] ?? { content: "{}" });
  await t.db
    .update(workspaces)
    .set({
      settings: { llm: { baseUrl: fake.baseUrl, model: "m" }, allowedPrivateHosts: ["127.0.0.1"] },
    })
    .where(eq(workspaces.id, fx.workspaceId));
});
afterAll(async () => {
  await fake?.close();
  await t?.close();
});

const def = (value: number) => ({
  schemaVersion: 1,
  name: "P",
  constraints: { allowSelfModification: true },
  steps: [{ id: "s", type: "transform", config: { value } }],
});

async function workflow() {
  const w = await createWorkflow({ ctx: fx.ctx("owner"), input: { name: `W ${Math.random()}` } });
  await saveDraft({ ctx: fx.ctx("owner"), input: { workflowId: w.id, definition: def(1) } });
  await publishWorkflow({ ctx: fx.ctx("owner"), input: { workflowId: w.id } });
  return w.id;
}

const intent = (workflowId: string) =>
  createProposal({
    ctx: fx.ctx("editor"),
    input: { workflowId, baseHash: "current", summary: "make it 2", intent: "Set the value to 2" },
  });

describe("intent", () => {
  it("a valid answer (a patch) becomes the proposal; the model saw definition, schema and intent", async () => {
    const workflowId = await workflow();
    fake.bodies.length = 0;
    replies = [
      {
        content: JSON.stringify({
          patch: [{ op: "replace", path: "/steps/0/config/value", value: 2 }],
        }),
      },
    ];
    const r = await intent(workflowId);
    const p = await getProposal({ ctx: fx.ctx("viewer"), input: { proposalId: r.id } });
    expect(p.proposed.definition).toMatchObject({ steps: [{ config: { value: 2 } }] });
    const sent = JSON.parse(fake.bodies[0]!.messages[1]!.content!) as Record<string, unknown>;
    expect(sent).toMatchObject({ change: "Set the value to 2", currentDefinition: { name: "P" } });
    expect(sent.jsonSchema).toHaveProperty("$id");
  });

  it("an invalid answer is fed back once with its issues; the fixed answer is used", async () => {
    const workflowId = await workflow();
    fake.bodies.length = 0;
    replies = [
      {
        content: JSON.stringify({
          definition: { ...def(2), steps: [{ id: "Bad Id", type: "transform" }] },
        }),
      },
      { content: JSON.stringify({ definition: def(2) }) },
    ];
    const r = await intent(workflowId);
    expect(r.status).toBe("pending");
    expect(fake.bodies).toHaveLength(2);
    const feedback = fake.bodies[1]!.messages.at(-1)!.content!;
    expect(feedback).toMatch(/That answer is invalid/);
    expect(feedback).toMatch(/steps\.0/);
  });

  //   s → charge (http POST)      answer 1: refused by the workspace's required approvals
  //   s → ask → charge            answer 2: accepted
  it("the workspace's required approvals are part of the feedback, so the model can fix its answer", async () => {
    const strict = await createWorkspaceFixture(t.db, "IntentStrict");
    await t.db
      .update(workspaces)
      .set({
        settings: {
          llm: { baseUrl: fake.baseUrl, model: "m" },
          allowedPrivateHosts: ["127.0.0.1"],
          requiredApprovals: ["http_write"],
        },
      })
      .where(eq(workspaces.id, strict.workspaceId));
    const w = await createWorkflow({ ctx: strict.ctx("owner"), input: { name: "Strict" } });
    await saveDraft({ ctx: strict.ctx("owner"), input: { workflowId: w.id, definition: def(1) } });
    await publishWorkflow({ ctx: strict.ctx("owner"), input: { workflowId: w.id } });
    const charge = {
      id: "charge",
      type: "http",
      config: { method: "POST", url: "https://pay.example/charge" },
    };
    const ask = { id: "ask", type: "approval", config: { prompt: "Charge?" } };
    fake.bodies.length = 0;
    replies = [
      { content: JSON.stringify({ definition: { ...def(1), steps: [...def(1).steps, charge] } }) },
      {
        content: JSON.stringify({
          definition: { ...def(1), steps: [...def(1).steps, ask, charge] },
        }),
      },
    ];
    const r = await createProposal({
      ctx: strict.ctx("editor"),
      input: {
        workflowId: w.id,
        baseHash: "current",
        summary: "charge",
        intent: "Charge the card",
      },
    });
    expect(r.status).toBe("pending");
    expect(fake.bodies[1]!.messages.at(-1)!.content!).toContain(
      'step "charge" (http POST) is reachable without an approval: start → s → charge',
    );
  });

  it("invalid twice fails with a ValidationError listing the issues", async () => {
    const workflowId = await workflow();
    fake.bodies.length = 0;
    replies = [{ content: "not json" }, { content: JSON.stringify({ nothing: true }) }];
    const e = await intent(workflowId).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ValidationError);
    expect((e as ValidationError).message).toMatch(/still invalid after one correction/);
    expect((e as ValidationError).issues[0]).toMatchObject({ path: ["intent"] });
    expect(fake.bodies).toHaveLength(2);
  });

  it("without an LLM integration the intent path says so", async () => {
    const other = await createWorkspaceFixture(t.db, "NoLlm");
    const w = await createWorkflow({ ctx: other.ctx("owner"), input: { name: "W" } });
    await saveDraft({ ctx: other.ctx("owner"), input: { workflowId: w.id, definition: def(1) } });
    await publishWorkflow({ ctx: other.ctx("owner"), input: { workflowId: w.id } });
    await expect(
      createProposal({
        ctx: other.ctx("editor"),
        input: { workflowId: w.id, baseHash: "current", summary: "x", intent: "y" },
      }),
    ).rejects.toMatchObject({ reason: "LLM_UNAVAILABLE" });
  });
});
