import "server-only";
import { TestSmtpIntegrationInput } from "@/lib/schemas/workspace";
import { verifySmtp } from "../../integrations/smtp";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { resolveSecrets } from "../secrets/resolve-secrets";
import { INTEGRATION_TEST_TIMEOUT_MS, probeIntegration } from "./probe-integration";
import { parseWorkspaceSettings, readRawSettings } from "./read-settings";

/** "Test connection" for an SMTP form: connect, TLS, login — nothing is sent. */
export async function testSmtpIntegration({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "admin");
  const parsed = TestSmtpIntegrationInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "SMTP settings");
  const smtp = parsed.data;
  const { policies } = parseWorkspaceSettings(await readRawSettings(ctx.db, ws.id));
  const values = await resolveSecrets(
    ctx.db,
    ctx.keys,
    ws.id,
    smtp.passwordSecret ? [smtp.passwordSecret] : [],
  );
  return probeIntegration(Object.values(values), async () => {
    await verifySmtp(
      { ...smtp, password: smtp.passwordSecret ? values[smtp.passwordSecret] : undefined },
      {
        timeoutMs: INTEGRATION_TEST_TIMEOUT_MS,
        outbound: { allowedPrivateHosts: policies.allowedPrivateHosts },
      },
    );
    return `Connected to ${smtp.host}:${smtp.port}${smtp.user ? ` and logged in as ${smtp.user}` : ""}`;
  });
}
