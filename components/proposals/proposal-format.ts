/**
 * Pure display rules of the proposal screens: list order, badge tones, author and verdict text.
 * Status names and labels come from lib/workflow/status.ts (not repeated here).
 */
import {
  isOpenProposalStatus,
  PROPOSAL_STATUSES,
  type ProposalStatus,
} from "@/lib/workflow/status";
import type { DryRunVerdict } from "@/lib/workflow/dry-run-types";

/**
 * How often an open proposal's review screen and the proposal lists ask again, so other
 * reviewers' decisions and notes, an apply, dry-run progress and a stale base appear without a
 * reload (the same TanStack Query polling the runs list uses, RUNS_POLL_MS).
 */
export const PROPOSAL_POLL_MS = 2_000;

/** Filter choices of the proposal lists: open ones (the default), everything, or one status. */
export type ProposalFilter = "open" | "all" | ProposalStatus;

export function statusesOf(filter: ProposalFilter): ProposalStatus[] | undefined {
  if (filter === "all") return undefined;
  if (filter === "open") return PROPOSAL_STATUSES.filter(isOpenProposalStatus);
  return [filter];
}

/** Pending first (it needs a reviewer), then approved (needs apply), then the rest; newest first within. */
export function sortProposals<T extends { status: ProposalStatus; createdAt: Date | string }>(
  items: readonly T[],
): T[] {
  const rank = (s: ProposalStatus) => (s === "pending" ? 0 : s === "approved" ? 1 : 2);
  return [...items].sort(
    (a, b) =>
      rank(a.status) - rank(b.status) ||
      new Date(b.createdAt).getTime() - new Date(a.createdAt).getTime(),
  );
}

export function statusTone(status: ProposalStatus): string {
  switch (status) {
    case "pending":
      return "badge badge-warn";
    case "approved":
      return "badge badge-info";
    case "applied":
      return "badge badge-ok";
    case "rejected":
    case "failed":
      return "badge badge-danger";
    case "expired":
    case "superseded":
      return "badge";
  }
}

export function riskTone(risk: string): string {
  return risk === "high" ? "badge badge-danger" : risk === "medium" ? "badge badge-warn" : "badge";
}

const AUTHOR_KIND: Record<string, string> = {
  user: "person",
  token: "API token",
  run: "workflow run",
  mcp: "MCP agent",
};

/** "Ada (API token)"; a person is just their name. */
export function authorText(author: { type: string; name: string }): string {
  return author.type === "user"
    ? author.name
    : `${author.name} (${AUTHOR_KIND[author.type] ?? author.type})`;
}

export const VERDICT_TEXT: Record<DryRunVerdict, { label: string; tone: string }> = {
  same_path: { label: "Same path", tone: "badge badge-ok" },
  different_path: { label: "Different path", tone: "badge badge-warn" },
  would_fail: { label: "Would fail", tone: "badge badge-danger" },
  not_comparable: { label: "Not comparable", tone: "badge" },
};

/** The reason a risk line was raised: `rule` in lib/workflow/proposal-risk.ts, `code` in older payloads. */
export function riskRuleOf(reason: object): string | null {
  const r = reason as { rule?: unknown; code?: unknown };
  return typeof r.rule === "string" ? r.rule : typeof r.code === "string" ? r.code : null;
}

/** Step ids a risk reason or verdict points at (`stepId` or `stepIds`). */
export function stepIdsOf(item: object): string[] {
  const r = item as { stepId?: unknown; stepIds?: unknown };
  if (Array.isArray(r.stepIds)) return r.stepIds.filter((s): s is string => typeof s === "string");
  return typeof r.stepId === "string" ? [r.stepId] : [];
}
