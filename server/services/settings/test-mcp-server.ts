import "server-only";
import { TestMcpServerInput } from "@/lib/schemas/workspace";
import { McpClient } from "../../integrations/mcp-client";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { resolveSecrets } from "../secrets/resolve-secrets";
import { INTEGRATION_TEST_TIMEOUT_MS, probeIntegration } from "./probe-integration";
import { parseWorkspaceSettings, readRawSettings } from "./read-settings";
import { recordMcpTools } from "./record-mcp-tools";

/**
 * "Test connection" for an MCP server form (admin; the form's values, saved or not): opens a
 * session and lists the tools through the SSRF guard. When the form matches a saved server the
 * list is cached, so publishing can check `tool` steps' tool names and required arguments.
 */
export async function testMcpServer({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "admin");
  const parsed = TestMcpServerInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "MCP server");
  const server = parsed.data;
  const settings = parseWorkspaceSettings(await readRawSettings(ctx.db, ws.id));
  const values = await resolveSecrets(
    ctx.db,
    ctx.keys,
    ws.id,
    server.apiKeySecret ? [server.apiKeySecret] : [],
  );
  const apiKey = server.apiKeySecret ? values[server.apiKeySecret] : undefined;
  return probeIntegration(Object.values(values), async () => {
    const started = Date.now();
    const client = await McpClient.connect(server.url, {
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
      outbound: { allowedPrivateHosts: settings.policies.allowedPrivateHosts },
      timeoutMs: INTEGRATION_TEST_TIMEOUT_MS,
    });
    try {
      const tools = await client.listTools();
      const saved = settings.mcpServers.find((s) => s.name === server.name);
      if (saved?.url === server.url) await recordMcpTools(ctx.db, ws.id, saved, tools, ctx.now());
      const names = tools.map((t) => t.name);
      return `${client.serverInfo.name ?? "The server"} answered in ${Date.now() - started} ms with ${tools.length} tool${tools.length === 1 ? "" : "s"}${names.length ? `: ${names.slice(0, 20).join(", ")}${names.length > 20 ? ", …" : ""}` : ""}`;
    } finally {
      await client.close();
    }
  });
}
