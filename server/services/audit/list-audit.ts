import "server-only";
import { and, desc, eq, gte, like, lt, lte, or, sql, type SQL } from "drizzle-orm";
import { apiTokens, auditEvents, historyChain, users } from "@/db/schema";
import { redactSecretKeys } from "@/lib/redact";
import { ListAuditInput } from "@/lib/schemas/audit";
import { fromZodError, ValidationError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";

/**
 * The workspace's audit log (admin and above), newest first, keyset-paged by (created_at, id).
 * Details pass through redactSecretKeys: callers record secret names, never values, and this is
 * the net under that rule for everything shown or exported.
 */
export async function listAudit({ ctx, input }: { ctx: ServiceContext; input?: unknown }) {
  const ws = requireRole(ctx, "admin");
  const parsed = ListAuditInput.safeParse(input ?? {});
  if (!parsed.success) throw fromZodError(parsed.error, "Filters");
  const f = parsed.data;
  const where: (SQL | undefined)[] = [eq(auditEvents.workspaceId, ws.id)];
  if (f.actorType) where.push(eq(auditEvents.actorType, f.actorType));
  if (f.actorId) where.push(eq(auditEvents.actorId, f.actorId));
  if (f.action) {
    where.push(
      f.action.endsWith("*")
        ? // The contract allows only [a-z0-9_.], so `_` is the one LIKE wildcard to escape.
          like(auditEvents.action, `${f.action.slice(0, -1).replace(/_/g, "\\_")}%`)
        : eq(auditEvents.action, f.action),
    );
  }
  if (f.targetType) where.push(eq(auditEvents.targetType, f.targetType));
  if (f.targetId) where.push(eq(auditEvents.targetId, f.targetId));
  if (f.from) where.push(gte(auditEvents.createdAt, f.from));
  if (f.to) where.push(lte(auditEvents.createdAt, f.to));
  // created_at is always written from ctx.now() (millisecond precision), so the ISO text of the
  // cursor compares equal to the stored value and ties fall to the id.
  if (f.cursor) {
    const [ts, rawId] = f.cursor.split("|");
    const at = new Date(ts ?? "");
    const id = Number(rawId);
    if (Number.isNaN(at.getTime()) || !Number.isSafeInteger(id))
      throw new ValidationError(`cursor: "${f.cursor}" is not a cursor this list returned`);
    where.push(
      or(lt(auditEvents.createdAt, at), and(eq(auditEvents.createdAt, at), lt(auditEvents.id, id))),
    );
  }
  const rows = await ctx.db
    .select({
      id: auditEvents.id,
      createdAt: auditEvents.createdAt,
      actorType: auditEvents.actorType,
      actorId: auditEvents.actorId,
      userName: users.name,
      userEmail: users.email,
      tokenName: apiTokens.name,
      action: auditEvents.action,
      targetType: auditEvents.targetType,
      targetId: auditEvents.targetId,
      data: auditEvents.data,
      clientAddress: auditEvents.clientAddress,
      userAgent: auditEvents.userAgent,
      chainSeq: historyChain.seq,
      chainHash: historyChain.hash,
      chainPrevHash: historyChain.prevHash,
      chainContentHash: historyChain.contentHash,
    })
    .from(auditEvents)
    .leftJoin(users, and(eq(auditEvents.actorType, "user"), eq(users.id, auditEvents.actorId)))
    // Scoped to the workspace so a token id from elsewhere never lends this row a name.
    .leftJoin(
      apiTokens,
      and(
        eq(auditEvents.actorType, "token"),
        eq(apiTokens.id, auditEvents.actorId),
        eq(apiTokens.workspaceId, ws.id),
      ),
    )
    // Exports carry the history chain: each row's link (null for rows older than the chain).
    .leftJoin(
      historyChain,
      and(
        eq(historyChain.workspaceId, ws.id),
        eq(historyChain.kind, "audit"),
        eq(historyChain.rowId, sql`${auditEvents.id}::text`),
      ),
    )
    .where(and(...where))
    .orderBy(desc(auditEvents.createdAt), desc(auditEvents.id))
    .limit(f.limit + 1);
  const page = rows.slice(0, f.limit);
  const last = page[page.length - 1];
  return {
    items: page.map(
      ({
        userName,
        userEmail,
        tokenName,
        data,
        chainSeq,
        chainHash,
        chainPrevHash,
        chainContentHash,
        ...r
      }) => ({
        ...r,
        actorName: userName ?? userEmail ?? tokenName ?? null,
        details: redactSecretKeys(data),
        chain:
          chainSeq === null || chainHash === null
            ? null
            : {
                seq: chainSeq,
                hash: chainHash,
                prevHash: chainPrevHash!,
                contentHash: chainContentHash!,
              },
      }),
    ),
    nextCursor: rows.length > f.limit && last ? `${last.createdAt.toISOString()}|${last.id}` : null,
  };
}

export type AuditEntry = Awaited<ReturnType<typeof listAudit>>["items"][number];
