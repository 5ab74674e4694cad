import "server-only";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import {
  approvalDecisions,
  auditEvents,
  definitionContents,
  proposalReviews,
  proposals,
  workflowVersions,
} from "@/db/schema";
import { hashText } from "@/lib/workflow/hash";
import type { HistoryKind } from "@/lib/schemas/history";
import serialize from "canonicalize";

/**
 * The content of each covered row as the chain hashes it. The columns are listed explicitly
 * (never `select *`): a column a later migration adds must not change the hash of old rows. The
 * same loader serves appending and verifying, so both always see the same canonical form.
 */
type Content = Record<string, unknown>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** RFC 8785 canonical JSON (the `canonicalize` package); every value here has a JSON form. */
function canonicalize(value: unknown): string {
  return serialize(value) ?? "null";
}

async function auditContents(q: Queryable, ws: string, ids: string[]) {
  const numeric = ids.map(Number).filter(Number.isSafeInteger);
  if (!numeric.length) return [];
  const rows = await q
    .select({
      id: auditEvents.id,
      workspaceId: auditEvents.workspaceId,
      actorType: auditEvents.actorType,
      actorId: auditEvents.actorId,
      action: auditEvents.action,
      targetType: auditEvents.targetType,
      targetId: auditEvents.targetId,
      data: auditEvents.data,
      clientAddress: auditEvents.clientAddress,
      userAgent: auditEvents.userAgent,
      createdAt: auditEvents.createdAt,
    })
    .from(auditEvents)
    .where(and(eq(auditEvents.workspaceId, ws), inArray(auditEvents.id, numeric)));
  return rows.map((r) => [String(r.id), { ...r, createdAt: iso(r.createdAt) }] as const);
}

async function versionContents(q: Queryable, ws: string, ids: string[]) {
  const rows = await q
    .select({
      id: workflowVersions.id,
      workflowId: workflowVersions.workflowId,
      workspaceId: workflowVersions.workspaceId,
      version: workflowVersions.version,
      hash: workflowVersions.hash,
      source: workflowVersions.source,
      notes: workflowVersions.notes,
      authorType: workflowVersions.authorType,
      authorId: workflowVersions.authorId,
      restoredFromVersionId: workflowVersions.restoredFromVersionId,
      createdAt: workflowVersions.createdAt,
      // The stored definition itself: editing definition_contents breaks the version's link too.
      definition: definitionContents.definition,
    })
    .from(workflowVersions)
    .leftJoin(
      definitionContents,
      and(
        eq(definitionContents.workspaceId, workflowVersions.workspaceId),
        eq(definitionContents.hash, workflowVersions.hash),
      ),
    )
    .where(and(eq(workflowVersions.workspaceId, ws), inArray(workflowVersions.id, ids)));
  return rows.map(({ definition, ...r }) => {
    const definitionSha = definition === null ? null : hashText(canonicalize(definition));
    return [r.id, { ...r, createdAt: iso(r.createdAt), definitionSha }] as const;
  });
}

async function reviewContents(q: Queryable, ws: string, ids: string[]) {
  const rows = await q
    .select({
      id: proposalReviews.id,
      proposalId: proposalReviews.proposalId,
      workspaceId: proposalReviews.workspaceId,
      actorType: proposalReviews.actorType,
      actorId: proposalReviews.actorId,
      userId: proposalReviews.userId,
      reviewerRole: proposalReviews.reviewerRole,
      decision: proposalReviews.decision,
      notes: proposalReviews.notes,
      shownHash: proposalReviews.shownHash,
      createdAt: proposalReviews.createdAt,
    })
    .from(proposalReviews)
    .where(and(eq(proposalReviews.workspaceId, ws), inArray(proposalReviews.id, ids)));
  return rows.map((r) => [r.id, { ...r, createdAt: iso(r.createdAt) }] as const);
}

/** An apply: only the fields an apply sets once (status moves on, e.g. to rolled back). */
async function applyContents(q: Queryable, ws: string, ids: string[]) {
  const rows = await q
    .select({
      id: proposals.id,
      workspaceId: proposals.workspaceId,
      workflowId: proposals.workflowId,
      baseHash: proposals.baseHash,
      proposedHash: proposals.proposedHash,
      appliedVersionId: proposals.appliedVersionId,
      appliedAt: proposals.appliedAt,
      appliedBy: proposals.appliedBy,
    })
    .from(proposals)
    .where(
      and(
        eq(proposals.workspaceId, ws),
        inArray(proposals.id, ids),
        sql`${proposals.appliedAt} is not null`,
      ),
    );
  return rows.map((r) => [r.id, { ...r, appliedAt: iso(r.appliedAt) }] as const);
}

async function decisionContents(q: Queryable, ws: string, ids: string[]) {
  const rows = await q
    .select({
      id: approvalDecisions.id,
      approvalId: approvalDecisions.approvalId,
      workspaceId: approvalDecisions.workspaceId,
      actorType: approvalDecisions.actorType,
      actorId: approvalDecisions.actorId,
      userId: approvalDecisions.userId,
      decision: approvalDecisions.decision,
      reason: approvalDecisions.reason,
      shownHash: approvalDecisions.shownHash,
      via: approvalDecisions.via,
      formData: approvalDecisions.formData,
      createdAt: approvalDecisions.createdAt,
    })
    .from(approvalDecisions)
    .where(and(eq(approvalDecisions.workspaceId, ws), inArray(approvalDecisions.id, ids)));
  return rows.map((r) => [r.id, { ...r, createdAt: iso(r.createdAt) }] as const);
}

const LOADERS: Record<
  HistoryKind,
  (q: Queryable, ws: string, ids: string[]) => Promise<(readonly [string, Content])[]>
> = {
  audit: auditContents,
  version: versionContents,
  proposal_review: reviewContents,
  proposal_apply: applyContents,
  approval_decision: decisionContents,
};

/** Content hashes of the named rows of one kind in one workspace; a missing row is absent. */
export async function contentHashes(
  q: Queryable,
  workspaceId: string,
  kind: HistoryKind,
  ids: string[],
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (!ids.length) return out;
  for (const [id, content] of await LOADERS[kind](q, workspaceId, ids))
    out.set(id, hashText(canonicalize({ kind, content })));
  return out;
}

/** The link hash: binds the entry's place (seq, previous link) to what it covers. */
export function linkHash(entry: {
  prevHash: string;
  seq: number;
  kind: string;
  rowId: string;
  contentHash: string;
}): string {
  return hashText(
    canonicalize({
      prev: entry.prevHash,
      seq: entry.seq,
      kind: entry.kind,
      rowId: entry.rowId,
      content: entry.contentHash,
    }),
  );
}
