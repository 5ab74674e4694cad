/**
 * A webhook's required headers, filter and repository ref source over /api/v1: accepted as given,
 * and bad ones answered 400 naming the config path — never a 500 or a silently kept setting.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setProcessDb } from "@/db";
import { createTestDb, type TestDb } from "@/db/testing";
import { createApiToken } from "@/server/services/api-tokens/create-api-token";
import { createWorkflow } from "@/server/services/workflows/create-workflow";
import { createWorkspaceFixture, type WorkspaceFixture } from "@/server/testing/harness";
import * as triggersRoute from "./workflows/[id]/triggers/route";

let t: TestDb;
let fx: WorkspaceFixture;
let token: string;
let workflowId: string;
beforeAll(async () => {
  t = await createTestDb("apiwebhookconfig");
  setProcessDb(t);
  fx = await createWorkspaceFixture(t.db, "Hooks");
  token = (await createApiToken({ ctx: fx.ctx("owner"), input: { name: "e", role: "editor" } }))
    .token;
  workflowId = (await createWorkflow({ ctx: fx.ctx("owner"), input: { name: "PRs" } })).id;
});
afterAll(async () => {
  await t?.close();
});

const create = (config: Record<string, unknown>) =>
  triggersRoute.POST(
    new Request(`http://localhost/api/v1/workflows/${workflowId}/triggers`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ kind: "webhook", name: "GitHub", config }),
    }),
    { params: Promise.resolve({ id: workflowId }) },
  );

describe("POST /api/v1/workflows/{id}/triggers: webhook delivery rules", () => {
  it("stores required headers, a filter and a repository ref source", async () => {
    const config = {
      verification: { preset: "github" },
      requireHeaders: { "X-GitHub-Event": "push" },
      filter: { ref: "trigger.body.ref", eq: "refs/heads/main" },
      repositoryRef: "$.after",
    };
    const res = await create(config);
    expect(res.status, await res.clone().text()).toBe(201);
    expect((await res.json()).trigger.config).toMatchObject({
      requireHeaders: { "X-GitHub-Event": "push" },
      filter: config.filter,
      repositoryRef: "$.after",
    });
  });

  it("answers 400 naming the path of a bad filter, header or ref source", async () => {
    const cases: [Record<string, unknown>, (string | number)[], RegExp][] = [
      [{ filter: { ref: "body.after", exists: true } }, ["config", "filter", "ref"], /root "body"/],
      [
        { requireHeaders: { "X-GitHub-Event": "push", "X-GITHUB-EVENT": "pull_request" } },
        ["config", "requireHeaders", "X-GITHUB-EVENT"],
        /case-insensitive/,
      ],
      [
        { requireHeaders: { "X-GitHub-Event": 1 } },
        ["config", "requireHeaders", "X-GitHub-Event"],
        /string/,
      ],
      [{ repositoryRef: "after" }, ["config", "repositoryRef"], /a source such as/],
    ];
    for (const [config, path, message] of cases) {
      const res = await create(config);
      expect(res.status).toBe(400);
      const { error } = await res.json();
      expect(error.details.issues).toEqual([
        expect.objectContaining({ path, message: expect.stringMatching(message) }),
      ]);
    }
  });
});
