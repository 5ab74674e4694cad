import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect, test } from "@playwright/test";
import { createApiToken } from "../fixtures/people";
import { OWNER_STATE } from "../fixtures/users";
import { trpcQuery } from "../fixtures/workflows";

test.use({ storageState: OWNER_STATE });

/** An MCP tool call's structured answer (fails with the tool's text otherwise). */
async function tool(client: Client, name: string, args: Record<string, unknown>) {
  const r = await client.callTool({ name, arguments: args });
  expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
  return r.structuredContent as Record<string, unknown>;
}

test("an agent records a workflow over MCP; the editor offers its copied value as a reference", async ({
  page,
  request,
  baseURL,
}) => {
  // The agent: an editor token and the official MCP client against the running app.
  const token = await createApiToken(request, `recorder-${Date.now()}`, "editor");
  const agent = new Client({ name: "e2e-agent", version: "1.0.0" });
  await agent.connect(
    new StreamableHTTPClientTransport(new URL("/api/mcp", baseURL), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  const started = await tool(agent, "start_recording", { name: `Recorded ${Date.now()}` });
  const recordingId = started.recordingId as string;
  await tool(agent, "record_step", {
    recordingId,
    type: "code",
    id: "make",
    config: { source: "export default () => ({ id: 'ord_42' })" },
  });
  // The agent copied the id instead of referencing it: the literal the editor should offer.
  await tool(agent, "record_step", {
    recordingId,
    type: "code",
    id: "use",
    config: { source: "export default (id) => ({ got: id })", input: "ord_42" },
  });
  await tool(agent, "finish_recording", { recordingId });
  const saved = await tool(agent, "save_as_workflow", { recordingId });
  await agent.close();
  const workflowId = saved.workflowId as string;

  await page.goto(`/workflows/${workflowId}/edit`);
  const offer = page.getByRole("region", { name: "Suggested references" });
  await expect(offer).toContainText("use.input");
  await expect(offer).toContainText("{{ steps.make.output.data.id }}");
  await offer.getByRole("button", { name: "Use reference" }).click();
  await expect(offer).toHaveCount(0);
  // The edit went into the draft (autosaved) like any other edit.
  await expect
    .poll(async () => {
      const wf = await trpcQuery<{
        draft: { steps: { id: string; config: { input?: unknown } }[] };
      }>(request, "workflow.get", { workflowId });
      return wf.draft.steps.find((s) => s.id === "use")?.config.input;
    })
    .toBe("{{ steps.make.output.data.id }}");
});
