import "server-only";
import type { Queryable } from "@/db/client";
import type { LlmEndpoint, SmtpSettings } from "@/server/services/step-execution/actions/types";
import type { Keys } from "../../keys";
import { resolveSecrets } from "../secrets/resolve-secrets";
import { parseWorkspaceSettings, readRawSettings } from "./read-settings";

export interface WorkspaceIntegrations {
  llm?: LlmEndpoint;
  smtp?: SmtpSettings;
  /** The resolved secret values (API key, SMTP password): add them to the run's redaction set. */
  secretValues: string[];
}

/**
 * Internal, for the run engine. The workspace's LLM endpoint and SMTP server with their secrets
 * decrypted, for `ctx.llm` / `ctx.smtp`. Ask only for what the step needs (`which`): a missing
 * secret of a requested integration throws MissingSecretsError (a user error for the run).
 */
export async function loadWorkspaceIntegrations(
  db: Queryable,
  keys: Keys,
  workspaceId: string,
  which: ReadonlyArray<"llm" | "smtp"> = ["llm", "smtp"],
): Promise<WorkspaceIntegrations> {
  const settings = parseWorkspaceSettings(await readRawSettings(db, workspaceId));
  const llm = which.includes("llm") ? settings.llm : null;
  const smtp = which.includes("smtp") ? settings.smtp : null;
  const names = [llm?.apiKeySecret, smtp?.passwordSecret].filter((n): n is string => !!n);
  const values = await resolveSecrets(db, keys, workspaceId, names);
  const out: WorkspaceIntegrations = { secretValues: Object.values(values) };
  if (llm) {
    out.llm = {
      baseUrl: llm.baseUrl,
      model: llm.model,
      ...(llm.apiKeySecret ? { apiKey: values[llm.apiKeySecret] } : {}),
    };
  }
  if (smtp) {
    out.smtp = {
      host: smtp.host,
      port: smtp.port,
      secure: smtp.secure,
      ...(smtp.user ? { user: smtp.user } : {}),
      ...(smtp.passwordSecret ? { password: values[smtp.passwordSecret] } : {}),
      from: smtp.from,
    };
  }
  return out;
}
