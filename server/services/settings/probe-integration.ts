import "server-only";
import { createRedactor } from "@/lib/redact";
import type { IntegrationTestResult } from "@/lib/schemas/workspace";

export const INTEGRATION_TEST_TIMEOUT_MS = 20_000;

/**
 * Runs a check through the same client and SSRF guard the steps use, with the workspace's saved
 * allowed private hosts. Failures are answers, not exceptions: the caller shows the exact error
 * (with the secret values redacted from it).
 */
export async function probeIntegration(
  secretValues: string[],
  work: () => Promise<string>,
): Promise<IntegrationTestResult> {
  const started = Date.now();
  const redact = createRedactor(secretValues);
  try {
    const message = await work();
    return { ok: true, message: redact.string(message), durationMs: Date.now() - started };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return { ok: false, message: redact.string(message), durationMs: Date.now() - started };
  }
}
