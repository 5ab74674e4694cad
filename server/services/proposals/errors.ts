import "server-only";
import type { ProposalErrorReason } from "@/lib/schemas/proposals";
import { DomainError, type DomainErrorCode } from "../../errors";

/** The domain code each proposal refusal travels as (tRPC maps it in server/trpc/init.ts). */
const DOMAIN_CODE: Record<ProposalErrorReason, DomainErrorCode> = {
  STALE_BASE: "CONFLICT",
  EXPIRED: "PRECONDITION_FAILED",
  SELF_REVIEW: "FORBIDDEN",
  SENIOR_REVIEWER_REQUIRED: "FORBIDDEN",
  SELF_MODIFICATION_DISABLED: "PRECONDITION_FAILED",
  POLICY_VIOLATION: "FORBIDDEN",
  INVALID_PATCH: "VALIDATION",
  INVALID_STATUS: "PRECONDITION_FAILED",
  SHOWN_CONTENT_CHANGED: "CONFLICT",
  LLM_UNAVAILABLE: "PRECONDITION_FAILED",
  NOT_VERIFIED: "PRECONDITION_FAILED",
};

/**
 * HTTP statuses of proposal refusals (docs/proposals.md). EXPIRED is 410 (the proposal is gone for
 * good); POLICY_VIOLATION is 403 on both transports: the caller may not make this change here.
 */
export const PROPOSAL_HTTP_STATUS: Record<ProposalErrorReason, number> = {
  STALE_BASE: 409,
  EXPIRED: 410,
  SELF_REVIEW: 403,
  SENIOR_REVIEWER_REQUIRED: 403,
  SELF_MODIFICATION_DISABLED: 412,
  POLICY_VIOLATION: 403,
  INVALID_PATCH: 400,
  INVALID_STATUS: 412,
  SHOWN_CONTENT_CHANGED: 409,
  LLM_UNAVAILABLE: 412,
  NOT_VERIFIED: 412,
};

/**
 * A proposal refusal: a domain error whose `details.reason` names the exact rule. `details.issues`
 * repeats it as `{ code, message }` because that is the part the tRPC error shape forwards.
 */
export class ProposalError extends DomainError {
  constructor(
    readonly reason: ProposalErrorReason,
    message: string,
    extra: Record<string, unknown> = {},
  ) {
    super(DOMAIN_CODE[reason], message, {
      reason,
      issues: (extra.issues as unknown[] | undefined) ?? [{ path: [], code: reason, message }],
      ...extra,
    });
  }
}
