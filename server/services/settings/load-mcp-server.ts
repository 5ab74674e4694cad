import "server-only";
import type { Queryable } from "@/db/client";
import type { McpServerEndpoint } from "@/server/services/step-execution/actions/types";
import type { Keys } from "../../keys";
import { resolveSecrets } from "../secrets/resolve-secrets";
import { parseWorkspaceSettings, readRawSettings } from "./read-settings";

/**
 * Internal, for the run engine: one configured MCP server by name with its API key decrypted
 * (`null` when no server has that name). A missing secret throws MissingSecretsError (a user
 * error for the run); the key's value must join the run's redaction set (`secretValues`).
 */
export async function loadMcpServer(
  db: Queryable,
  keys: Keys,
  workspaceId: string,
  name: string,
): Promise<{ server: McpServerEndpoint; secretValues: string[] } | null> {
  const { mcpServers } = parseWorkspaceSettings(await readRawSettings(db, workspaceId));
  const server = mcpServers.find((s) => s.name === name);
  if (!server) return null;
  const secret = server.apiKeySecret;
  const values = secret ? await resolveSecrets(db, keys, workspaceId, [secret]) : {};
  const apiKey = secret ? values[secret] : undefined;
  return {
    server: {
      name: server.name,
      url: server.url,
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
    },
    secretValues: apiKey ? [apiKey] : [],
  };
}
