import { z } from "zod";
import type { DryRunReport, DryRunRunReport } from "../workflow/dry-run-types";
import type { Verification } from "../workflow/verification";
import type { ChangeLine } from "../workflow/change-summary";
import type { DefinitionDiff } from "../workflow/diff";
import { RISK_LEVELS, type PolicyVerdict, type RiskReason } from "../workflow/proposal-risk-change";
import { PROPOSAL_STATUSES, ProposalStatus } from "../workflow/status";
import { HASH_PATTERN } from "../workflow/hash";
import { quote } from "../workflow/json";
import { Bump } from "./workflows";
import type { RuleVerdict } from "./proposal-rules";

export { PROPOSAL_STATUSES, ProposalStatus };

/** SPEC §8: a proposal not applied within 14 days expires. */
export const PROPOSAL_TTL_DAYS = 14;
/** Finished proposals are deleted after this many days (the expiry function's default). */
export const PROPOSAL_RETENTION_DAYS = 365;
/** How many finished runs the dry run replays by default. */
export const DRY_RUN_DEFAULT_RUNS = 10;

export { RISK_LEVELS };
export const RiskLevel = z.enum(RISK_LEVELS);
export type RiskLevel = z.infer<typeof RiskLevel>;
export type { ChangeLine, PolicyVerdict, RiskReason };

export const PROPOSAL_AUTHOR_TYPES = ["user", "token", "run", "mcp"] as const;
export const ProposalAuthorType = z.enum(PROPOSAL_AUTHOR_TYPES);
export type ProposalAuthorType = z.infer<typeof ProposalAuthorType>;

export const REVIEW_DECISIONS = ["approve", "reject"] as const;
export const ReviewDecision = z.enum(REVIEW_DECISIONS);
export type ReviewDecision = z.infer<typeof ReviewDecision>;

export const DRY_RUN_STATUSES = ["pending", "running", "done", "failed"] as const;
export const DryRunStatus = z.enum(DRY_RUN_STATUSES);
export type DryRunStatus = z.infer<typeof DryRunStatus>;

/**
 * Refusal reasons specific to proposals. Services attach them to domain errors as
 * `details.reason` (and as `details.issues[0].code`, which the tRPC error shape forwards); the
 * HTTP API answers with them as `error.code` (lower-case, like every other envelope code).
 */
export const PROPOSAL_ERROR_REASONS = [
  "STALE_BASE",
  "EXPIRED",
  "SELF_REVIEW",
  "SENIOR_REVIEWER_REQUIRED",
  "SELF_MODIFICATION_DISABLED",
  "POLICY_VIOLATION",
  "INVALID_PATCH",
  "INVALID_STATUS",
  "SHOWN_CONTENT_CHANGED",
  "LLM_UNAVAILABLE",
  "NOT_VERIFIED",
] as const;
export type ProposalErrorReason = (typeof PROPOSAL_ERROR_REASONS)[number];

const id = z.string().min(1).max(64);
const hash = z.string().min(1).max(200);

export const ProposalAuthor = z.object({
  type: ProposalAuthorType,
  id: z.string().nullable(),
  name: z.string(),
});
export type ProposalAuthor = z.infer<typeof ProposalAuthor>;

export const ListProposalsInput = z.object({
  workflowId: id.optional(),
  status: z.array(ProposalStatus).max(PROPOSAL_STATUSES.length).optional(),
  cursor: z.string().max(200).optional(),
  limit: z.number().int().min(1).max(200).default(50),
});
export type ListProposalsInput = z.input<typeof ListProposalsInput>;

export const ProposalRef = z.object({ proposalId: id });
export type ProposalRef = z.infer<typeof ProposalRef>;

/** The explicit way to propose against whatever version is current (recorded as such). */
export const CURRENT_BASE = "current";

/**
 * The version a change was written against (SPEC §8: every proposal names its base): its
 * `sha256:` hash, or `"current"` said explicitly. A missing or malformed value is a validation
 * error; a well-formed hash that is not the current version is STALE_BASE.
 */
export const ProposalBaseHash = z
  .string({
    error: (iss) =>
      iss.input === undefined
        ? 'Name the version the change was written against: its hash ("sha256:…", e.g. get_workflow\'s published hash) or "current"'
        : 'A base hash is "sha256:" followed by 64 lower-case hex digits, or "current"',
  })
  .max(200)
  .refine((v) => v === CURRENT_BASE || HASH_PATTERN.test(v), {
    error: (iss) =>
      `A base hash is "sha256:" followed by 64 lower-case hex digits, or "current"; got ${quote(iss.input)}`,
  });
export type ProposalBaseHash = z.infer<typeof ProposalBaseHash>;

/** RFC 6902 operations are checked op by op by applyDefinitionPatch (which names the failing op). */
const PatchInput = z.array(z.unknown()).min(1, "A patch needs at least one operation").max(1000);

export const CreateProposalInput = z
  .object({
    workflowId: id,
    /** The published hash the change was written against, or "current" (explicitly). */
    baseHash: ProposalBaseHash,
    summary: z.string().trim().min(1, "Summarize the change in one line").max(500),
    rationale: z.string().max(20_000).optional(),
    definition: z.unknown().optional(),
    patch: PatchInput.optional(),
    intent: z.string().trim().min(1).max(10_000).optional(),
  })
  .superRefine((v, ctx) => {
    const given = (["definition", "patch", "intent"] as const).filter((k) => v[k] !== undefined);
    if (given.length !== 1)
      ctx.addIssue({
        code: "custom",
        path: given.length ? [given[1]!] : ["definition"],
        message:
          given.length === 0
            ? "Give exactly one of definition, patch or intent"
            : `Give exactly one of definition, patch or intent (got ${given.join(" and ")})`,
      });
  });
export type CreateProposalInput = z.infer<typeof CreateProposalInput>;

export const ReviewProposalInput = z.object({
  proposalId: id,
  decision: ReviewDecision,
  notes: z.string().max(10_000).default(""),
  /**
   * `reviewedContentHash` from proposal.get: proves what the reviewer was shown. Omitted (HTTP
   * callers that did not read the proposal first) = the proposal's current content.
   */
  shownHash: hash.optional(),
});
export type ReviewProposalInput = z.input<typeof ReviewProposalInput>;

export const ApplyProposalInput = z.object({
  proposalId: id,
  bump: Bump.default("patch"),
  /**
   * Applies a proposal that is not `verified` although the workspace requires it (admins only):
   * why, in words, kept in the audit row.
   */
  overrideReason: z
    .string()
    .trim()
    .min(10, "Say why in at least 10 characters")
    .max(2000, "At most 2000 characters")
    .optional(),
});
export type ApplyProposalInput = z.input<typeof ApplyProposalInput>;

export const RollbackProposalInput = z.object({ proposalId: id });
export type RollbackProposalInput = z.infer<typeof RollbackProposalInput>;

export const SetSelfModificationInput = z.object({
  workflowId: id,
  enabled: z.boolean(),
  /**
   * The published version the caller showed (the switch's confirmation names the version it
   * creates from it): if another version was published since, the switch is refused (409).
   */
  expectedVersionId: id.optional(),
});
export type SetSelfModificationInput = z.infer<typeof SetSelfModificationInput>;

export const RetryDryRunInput = z.object({ proposalId: id });
export type RetryDryRunInput = z.infer<typeof RetryDryRunInput>;

// --- outputs (plain types: produced by services, read by the UI) -----------------------------

export interface ProposalListItem {
  id: string;
  workflowId: string;
  workflowName: string;
  summary: string;
  status: ProposalStatus;
  risk: RiskLevel;
  author: ProposalAuthor;
  createdAt: Date;
  expiresAt: Date;
  baseVersion: string;
  baseHash: string;
  /**
   * What the proposer named as the base: the hash itself, or "current" (resolved to `baseHash`
   * when the proposal was made). Null for proposals made before it was recorded.
   */
  baseRequested: string | null;
  proposedHash: string;
}

export interface ProposalDefinitionRef {
  versionId: string;
  version: string;
  hash: string;
  definition: Record<string, unknown>;
}

export interface ProposalDryRun {
  status: DryRunStatus;
  done: number;
  total: number;
  report: DryRunReport | null;
  error: string | null;
}

export interface ProposalReviewView {
  reviewer: { id: string; name: string };
  decision: ReviewDecision;
  notes: string;
  shownHash: string;
  createdAt: Date;
}

export interface ProposalDetail extends ProposalListItem {
  rationale: string;
  base: ProposalDefinitionRef;
  proposed: { hash: string; definition: Record<string, unknown> };
  current: ProposalDefinitionRef | null;
  isStale: boolean;
  diff: DefinitionDiff;
  changeSummary: ChangeLine[];
  riskReasons: RiskReason[];
  verdicts: PolicyVerdict[];
  /** The workspace's proposal rules (CEL): stored at creation, recomputed at review and apply. */
  ruleVerdicts: RuleVerdict[];
  needsSeniorReviewer: boolean;
  dryRun: ProposalDryRun;
  /** Real runs of the base version replayed on the proposal as they finished (issue #29). */
  shadowRuns: DryRunRunReport[];
  /** Computed by the engine from the replays; never set by the proposer. */
  verification: Verification;
  /** Whether this workspace applies only `verified` proposals (admins may override). */
  requireVerifiedToApply: boolean;
  reviews: ProposalReviewView[];
  appliedVersion: { id: string; version: string } | null;
  /** Links back to the run and step that proposed the change (propose_change steps). */
  origin: { runId: string | null; stepId: string | null };
  /** Hash of what the review screen shows: pass it back as `shownHash`. */
  reviewedContentHash: string;
  can: { review: boolean; apply: boolean; rollback: boolean; why: string | null };
}
