import type { EnvelopeStatus } from "../../lib/runs/envelope";

/** SPEC §9 exit codes. */
export const EXIT = {
  ok: 0,
  validation: 10,
  contract: 20,
  policy: 30,
  internal: 40,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** `details.code` of 412 answers that mean "the token or the gate it names no longer holds". */
const STALE_TOKEN_CODES = new Set(["RESUME_TOKEN_MISMATCH", "ALREADY_DECIDED", "EXPIRED"]);

/**
 * The exit code of a refused /api/v1 request (status 0 = no answer: network error). One table:
 *
 *   400 404 405 413 422, 412 (not published, invalid status, no LLM)   → 10 validation
 *   401, 409 (stale_base, conflict), 410, 412 resume-token/gate stale  → 20 contract
 *   403 (role, policy_violation, self_review), 412 self-modification  → 30 policy
 *   429, 5xx, network                                                  → 40 internal (retry later)
 */
export function exitForHttpError(status: number, code: string, details?: unknown): ExitCode {
  const detailCode =
    details && typeof details === "object" && "code" in details
      ? String((details as { code: unknown }).code)
      : "";
  if (status === 401 || status === 409 || status === 410) return EXIT.contract;
  if (status === 403) return EXIT.policy;
  if (status === 412) {
    if (code === "self_modification_disabled") return EXIT.policy;
    if (STALE_TOKEN_CODES.has(detailCode)) return EXIT.contract;
    return EXIT.validation;
  }
  if (status === 429 || status === 0 || status >= 500) return EXIT.internal;
  if (status >= 400) return EXIT.validation;
  return EXIT.internal;
}

/**
 * The exit code of a run envelope. SPEC §9: `ok`, `needs_approval`, `cancelled` (and `running`
 * after `--no-wait`) are successes — the envelope says what happened. A `failed` run exits by its
 * failure class (CONVENTIONS habit 8): a user error (bad config or input) is 10; anything else
 * (operational after its retries, internal, timed out) is 40.
 */
export function exitForEnvelope(envelope: {
  status: EnvelopeStatus;
  runStatus?: string;
  error?: Record<string, unknown>;
  steps?: readonly { stepId: string; failureClass?: string | null }[];
}): ExitCode {
  switch (envelope.status) {
    case "ok":
    case "needs_approval":
    case "cancelled":
    case "running":
      return EXIT.ok;
    case "failed":
      return envelope.runStatus !== "timed_out" && failureClassOf(envelope) === "user"
        ? EXIT.validation
        : EXIT.internal;
  }
}

/** The run error's class, else the class of the step it names (the run error only names it). */
function failureClassOf(envelope: Parameters<typeof exitForEnvelope>[0]): string | null {
  const error = envelope.error;
  if (!error) return null;
  if (typeof error.class === "string") return error.class;
  if (error.code === "output_unresolved") return "user";
  return envelope.steps?.find((s) => s.stepId === error.stepId)?.failureClass ?? null;
}
