import { expect, test } from "@playwright/test";
import { startFakeMcp, type FakeMcp } from "../../server/testing/fake-mcp";
import { OWNER_STATE } from "../fixtures/users";
import { allowPrivateHost, publishWorkflow, startRun } from "../fixtures/workflows";
import { RunPage } from "../pages/run-pages";
import { IntegrationsPage } from "../pages/settings-pages";

test.use({ storageState: OWNER_STATE });

/** A real MCP server (streamable HTTP) on 127.0.0.1 for the workspace's integration. */
let mcp: FakeMcp;
test.beforeAll(async () => {
  mcp = await startFakeMcp("json", 10, { extended: true });
});
test.afterAll(async () => {
  await mcp?.close();
});

test("an MCP server added in Settings → Integrations is tested and called by a tool step", async ({
  page,
  request,
}) => {
  const restore = await allowPrivateHost(request, "127.0.0.1");
  try {
    const integrations = new IntegrationsPage(page);
    await integrations.goto();
    const name = `fake-${Date.now().toString(36)}`;
    // A bad name is refused at the field.
    await integrations.addMcpServer("Not A Name", mcp.url);
    await expect(integrations.mcp().getByText(/Use lower-case letters/)).toBeVisible();
    await integrations.addMcpServer(name, mcp.url);
    await expect(page.getByText("MCP servers saved")).toBeVisible();
    const row = integrations.mcp().getByRole("row").filter({ hasText: name });
    await row.getByRole("button", { name: `Test ${name}` }).click();
    await expect(integrations.mcp().getByRole("status")).toContainText(
      "5 tools: add, echo, explode, weather, slow",
    );

    const workflowId = await publishWorkflow(request, {
      schemaVersion: 1,
      name: `Tool ${name}`,
      steps: [
        {
          id: "weather",
          type: "tool",
          config: { server: name, tool: "weather", arguments: { city: "Oslo" } },
        },
      ],
      output: "{{ steps.weather.output.data }}",
    });
    const run = new RunPage(page);
    await run.goto(await startRun(request, workflowId));
    await run.expectStatus("completed");
    await expect(run.output()).toContainText("Oslo");
    await expect(run.output()).toContainText("21");
  } finally {
    await restore();
  }
});
