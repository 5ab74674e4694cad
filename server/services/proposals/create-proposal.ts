import "server-only";
import { and, eq } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { apiTokens, memberships, proposals, runs, users } from "@/db/schema";
import { newId } from "@/lib/ids";
import {
  CreateProposalInput,
  CURRENT_BASE,
  PROPOSAL_TTL_DAYS,
  type ProposalAuthorType,
} from "@/lib/schemas/proposals";
import { Role } from "@/lib/schemas/roles";
import { applyDefinitionPatch } from "@/lib/workflow/json-patch";
import { fromZodError, ForbiddenError, ValidationError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";
import { loadWorkflow } from "../workflows/load-workflow";
import { checkChange } from "./change-checks";
import { dryRunRequestMessage } from "./dry-run-messages";
import { ProposalError } from "./errors";
import { refuseByRules, ruleVerdictsFor } from "./rule-verdicts";
import { generateFromIntent } from "./generate-from-intent";
import { publishedState, requireSelfModification, staleBase } from "./published-state";
import { storeDefinitionContent } from "../workflows/definition-content";

const DAY_MS = 86_400_000;

/** Where a proposal came from when it was not a signed-in person or an API token. */
export type ProposalOrigin =
  | { kind: "run"; runId: string; stepId: string; stepPath: string }
  | { kind: "mcp"; clientId: string; clientName: string };

interface Author {
  type: ProposalAuthorType;
  id: string | null;
  name: string;
  userId: string | null;
  role: Role;
}

async function resolveAuthor(
  db: Queryable,
  ctx: ServiceContext,
  workspaceId: string,
  origin?: ProposalOrigin,
): Promise<Author> {
  const role = ctx.workspace!.role;
  const userName = async (id: string) =>
    (await db.select({ name: users.name }).from(users).where(eq(users.id, id)))[0]?.name ?? id;
  if (origin?.kind === "run") {
    const [run] = await db
      .select({ userId: runs.accountableUserId })
      .from(runs)
      .where(and(eq(runs.id, origin.runId), eq(runs.workspaceId, workspaceId)));
    const userId = run?.userId ?? null;
    const [member] = userId
      ? await db
          .select({ role: memberships.role })
          .from(memberships)
          .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)))
      : [];
    return {
      type: "run",
      id: origin.runId,
      name: `Run ${origin.runId} · step ${origin.stepId}`,
      userId,
      // A run acts for its accountable user; without one, it counts as an editor.
      role: member ? Role.parse(member.role) : "editor",
    };
  }
  if (origin?.kind === "mcp") {
    const userId =
      ctx.actor.type === "user" || ctx.actor.type === "token" ? ctx.actor.userId : null;
    return { type: "mcp", id: origin.clientId, name: origin.clientName, userId, role };
  }
  switch (ctx.actor.type) {
    case "user":
      return {
        type: "user",
        id: ctx.actor.userId,
        name: await userName(ctx.actor.userId),
        userId: ctx.actor.userId,
        role,
      };
    case "token": {
      const [tok] = await db
        .select({ name: apiTokens.name })
        .from(apiTokens)
        .where(eq(apiTokens.id, ctx.actor.tokenId));
      return {
        type: "token",
        id: ctx.actor.tokenId,
        name: `API token "${tok?.name ?? ctx.actor.tokenId}"`,
        userId: ctx.actor.userId,
        role,
      };
    }
    case "system":
    case "anonymous":
      throw new ForbiddenError(
        "Proposals are made by a person, an API token, a run or an MCP client",
      );
  }
}

/**
 * The one way a proposal is created — tRPC, HTTP API, CLI, MCP and `propose_change` steps all come
 * here. The change (a full definition, an RFC 6902 patch against the base, or an intent turned into
 * one by the workspace's LLM) names its base — a hash that must be the current published version,
 * or an explicit "current", recorded as such — and that version must allow self-modification; it is validated, policy-checked and risk-assessed, stored
 * content-addressed, audited, and a dry run is requested through the outbox — all in one
 * transaction.
 */
export async function createProposal({
  ctx,
  input,
  origin,
}: {
  ctx: ServiceContext;
  input: unknown;
  origin?: ProposalOrigin;
}): Promise<{ id: string; status: "pending"; risk: "low" | "medium" | "high"; created: boolean }> {
  // A run step acts for its workflow (the step itself was validated with allowSelfModification).
  const ws = origin?.kind === "run" ? ctx.workspace : requireRole(ctx, "editor");
  if (!ws) throw new ForbiddenError("Select a workspace first");
  const parsed = CreateProposalInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Proposal");
  const data = parsed.data;
  // Recorded as given: "current" stays visible as a choice, not disguised as a hash.
  const baseRequested = data.baseHash;
  /** The hash the change must be based on; "current" accepts whatever the current version is. */
  let expectedBase: string | null = data.baseHash === CURRENT_BASE ? null : data.baseHash;

  if (origin?.kind === "run") {
    // A retried step must not open a second proposal.
    const [existing] = await ctx.db
      .select({ id: proposals.id, status: proposals.status, risk: proposals.risk })
      .from(proposals)
      .where(
        and(
          eq(proposals.workspaceId, ws.id),
          eq(proposals.runId, origin.runId),
          eq(proposals.stepPath, origin.stepPath),
        ),
      );
    if (existing)
      return { id: existing.id, status: "pending", risk: existing.risk, created: false };
  }

  // The LLM call is slow: it happens before the transaction, and the base is re-checked inside.
  let intentDefinition: unknown;
  if (data.intent !== undefined) {
    const wf = await loadWorkflow(ctx.db, ws.id, data.workflowId);
    const state = await publishedState(ctx.db, wf);
    requireSelfModification(wf, state);
    if (expectedBase !== null && expectedBase !== state.version.hash)
      throw await staleBase(ctx.db, wf, { baseHash: expectedBase, current: state });
    intentDefinition = await generateFromIntent(ctx.db, ctx.keys, {
      workspaceId: ws.id,
      base: state.definition,
      intent: data.intent,
    });
    // The generated change was written against this version, whatever the caller named.
    expectedBase = state.version.hash;
  }

  return ctx.db.transaction(async (tx) => {
    const wf = await loadWorkflow(tx, ws.id, data.workflowId);
    const state = await publishedState(tx, wf);
    requireSelfModification(wf, state);
    let proposed: unknown;
    if (data.patch !== undefined) {
      const r = applyDefinitionPatch(state.definition, data.patch);
      if (!r.ok)
        throw new ProposalError("INVALID_PATCH", `The patch does not apply: ${r.error.message}`, {
          index: r.error.index,
          op: r.error.op ?? null,
          issues: [
            {
              path: r.error.index >= 0 ? ["patch", r.error.index] : ["patch"],
              code: "INVALID_PATCH",
              message: r.error.message,
            },
          ],
        });
      proposed = r.definition;
    } else {
      proposed = data.definition ?? intentDefinition;
    }
    if (expectedBase !== null && expectedBase !== state.version.hash)
      throw await staleBase(tx, wf, { baseHash: expectedBase, current: state, proposed });
    const checked = await checkChange(tx, {
      workspaceId: ws.id,
      workflowId: wf.id,
      base: state.definition,
      proposed,
      what: "The proposed definition",
    });
    if (checked.compiled.hash === state.version.hash)
      throw new ValidationError(
        `The proposed definition is identical to the current version v${state.version.version}: there is nothing to review`,
        [{ path: [], message: "No change" }],
      );
    const author = await resolveAuthor(tx, ctx, ws.id, origin);
    // The workspace's proposal rules judge the change; a refusal stops it here.
    const ruleVerdicts = await ruleVerdictsFor(tx, ws.id, {
      base: state.definition,
      proposed: checked.compiled.normalized,
      assessment: checked,
      author: { type: author.type, role: author.role },
    });
    refuseByRules(ruleVerdicts, "The proposed change");
    const now = ctx.now();
    await storeDefinitionContent(tx, {
      workspaceId: ws.id,
      hash: checked.compiled.hash,
      definition: checked.compiled.normalized,
      createdAt: now,
    });
    const id = newId("prp");
    await tx.insert(proposals).values({
      id,
      workspaceId: ws.id,
      workflowId: wf.id,
      baseVersionId: state.version.id,
      baseVersion: state.version.version,
      baseHash: state.version.hash,
      baseRequested,
      proposedHash: checked.compiled.hash,
      summary: data.summary,
      rationale: data.rationale ?? "",
      inputKind:
        data.patch !== undefined ? "patch" : data.intent !== undefined ? "intent" : "definition",
      authorType: author.type,
      authorId: author.id,
      authorName: author.name,
      authorUserId: author.userId,
      authorRole: author.role,
      runId: origin?.kind === "run" ? origin.runId : null,
      stepId: origin?.kind === "run" ? origin.stepId : null,
      stepPath: origin?.kind === "run" ? origin.stepPath : null,
      status: "pending",
      expiresAt: new Date(now.getTime() + PROPOSAL_TTL_DAYS * DAY_MS),
      risk: checked.risk,
      riskReasons: checked.reasons as unknown as Record<string, unknown>[],
      verdicts: checked.verdicts as unknown as Record<string, unknown>[],
      needsSeniorReviewer: checked.needsSeniorReviewer,
      ruleVerdicts: ruleVerdicts as unknown as Record<string, unknown>[],
      dryRunStatus: "pending",
      dryRunRequest: 1,
      createdAt: now,
      updatedAt: now,
    });
    await recordAudit(tx, ctx, {
      workspaceId: ws.id,
      action: "proposal.created",
      targetType: "proposal",
      targetId: id,
      data: {
        workflowId: wf.id,
        baseVersion: state.version.version,
        baseHash: state.version.hash,
        baseRequested,
        proposedHash: checked.compiled.hash,
        risk: checked.risk,
        author: { type: author.type, id: author.id },
        ...(origin?.kind === "run" ? { runId: origin.runId, stepId: origin.stepId } : {}),
      },
    });
    await dryRunRequestMessage(tx, { proposalId: id, workspaceId: ws.id, request: 1 }, now);
    return { id, status: "pending" as const, risk: checked.risk, created: true };
  });
}
