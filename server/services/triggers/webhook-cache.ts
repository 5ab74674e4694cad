import "server-only";
import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import { LRUCache } from "lru-cache";
import type { Queryable } from "@/db/client";
import { triggers, workflows, workflowVersions } from "@/db/schema";
import { WebhookConfig } from "@/lib/schemas/triggers";
import { WorkflowDefinition } from "@/lib/workflow";
import type { Keys } from "../../keys";
import { definitionByHash } from "../workflows/version-content";
import type { TriggerRow } from "./start-trigger-run";
import { openWebhookSecret } from "./trigger-secret";
import { ownerStatuses } from "./trigger-owner";

/**
 * What the webhook receiver needs to accept a delivery without reading the database: the trigger
 * row with its parsed config and opened secrets, and its workflow's state and current definition.
 */
export interface WebhookEntry {
  trigger: TriggerRow;
  /** null: the stored config does not parse (answered 500, as before caching). */
  config: WebhookConfig | null;
  /** Opened secrets, or the reason they cannot be opened (master secret changed). */
  secrets:
    { ok: true; current: string | null; previous: string | null } | { ok: false; reason: string };
  workflow: { isEnabled: boolean; currentVersionId: string | null } | null;
  /** The current version's definition (inputs and overflow policy are checked at accept). */
  definition: WorkflowDefinition | null;
  /** The trigger's owner is a member: its runs have someone to count against (trigger-owner.ts). */
  hasOwner: boolean;
}

// Both caches are small LRUs without a TTL: an entry is never trusted on its own. The inbox insert is guarded by
// `entryGuard`, so a changed trigger, secret or workflow (in any process) misses the insert and
// the receiver reloads; rejections are re-checked against a fresh load before they are answered.
type Global = typeof globalThis & { __sluiceWebhookEntries?: LRUCache<string, WebhookEntry> };
const g = globalThis as Global;
const entries = (g.__sluiceWebhookEntries ??= new LRUCache<string, WebhookEntry>({ max: 1000 }));

/** The cached entry for a webhook path (loaded on a miss); `fresh` when it was just loaded. */
export async function webhookEntry(
  db: Queryable,
  keys: Keys,
  path: string,
  opts: { reload?: boolean } = {},
): Promise<{ entry: WebhookEntry | null; fresh: boolean }> {
  const cached = opts.reload ? undefined : entries.get(path);
  if (cached) return { entry: cached, fresh: false };
  const entry = await loadEntry(db, keys, path);
  if (entry) entries.set(path, entry);
  else entries.delete(path);
  return { entry, fresh: true };
}

/** Forgets every cached entry (tests; the guard keeps stale entries harmless anyway). */
export function clearWebhookCache(): void {
  entries.clear();
}

/** The definition of a workflow's current version; null when none is published or readable. */
export async function currentDefinition(
  db: Queryable,
  workspaceId: string,
  currentVersionId: string | null | undefined,
): Promise<WorkflowDefinition | null> {
  if (!currentVersionId) return null;
  const [version] = await db
    .select({ hash: workflowVersions.hash })
    .from(workflowVersions)
    .where(eq(workflowVersions.id, currentVersionId))
    .limit(1);
  return version ? definitionByHash(db, workspaceId, version.hash).catch(() => null) : null;
}

async function loadEntry(db: Queryable, keys: Keys, path: string): Promise<WebhookEntry | null> {
  const [trigger] = await db
    .select()
    .from(triggers)
    .where(and(eq(triggers.path, path), eq(triggers.kind, "webhook")))
    .limit(1);
  if (!trigger) return null;
  const parsed = WebhookConfig.safeParse(trigger.config);
  const [wf] = await db
    .select({ isEnabled: workflows.isEnabled, currentVersionId: workflows.currentVersionId })
    .from(workflows)
    .where(and(eq(workflows.id, trigger.workflowId), isNull(workflows.deletedAt)))
    .limit(1);
  // An unreadable definition leaves `definition` null: such deliveries take the direct path,
  // which reports the problem exactly as createRun words it.
  const definition = await currentDefinition(db, trigger.workspaceId, wf?.currentVersionId);
  const owner = (await ownerStatuses(db, [trigger])).get(trigger.id);
  return {
    trigger,
    config: parsed.success ? parsed.data : null,
    secrets: openSecrets(keys, trigger),
    workflow: wf ?? null,
    definition,
    hasOwner: owner === "member",
  };
}

function openSecrets(keys: Keys, t: TriggerRow): WebhookEntry["secrets"] {
  try {
    return {
      ok: true,
      current: t.secret ? openWebhookSecret(keys, t.workspaceId, t.id, t.secret) : null,
      previous: t.previousSecret
        ? openWebhookSecret(keys, t.workspaceId, t.id, t.previousSecret)
        : null,
    };
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  }
}

/** Millisecond precision on both sides: a JS Date cannot hold Postgres' microseconds. */
const sameInstant = (column: SQL, value: Date | null) =>
  value
    ? sql`date_trunc('milliseconds', ${column}) = ${value.toISOString()}::timestamptz`
    : sql`${column} is null`;
const sameJson = (column: SQL, value: unknown) =>
  value == null ? sql`${column} is null` : sql`${column} = ${JSON.stringify(value)}::jsonb`;

/**
 * A condition over `triggers t join workflows w` that holds only while the database still matches
 * the entry: same trigger settings and secrets, still enabled, same workflow state and version,
 * and the owner still a member (removing them stops the fast path at once).
 */
export function entryGuard(entry: WebhookEntry): SQL {
  const t = entry.trigger;
  return sql`t.id = ${t.id} and t.enabled
    and ${sameInstant(sql`t.updated_at`, t.updatedAt)}
    and ${sameJson(sql`t.config`, t.config)}
    and ${sameJson(sql`t.secret`, t.secret)}
    and ${sameJson(sql`t.previous_secret`, t.previousSecret)}
    and ${sameInstant(sql`t.previous_secret_expires_at`, t.previousSecretExpiresAt)}
    and w.is_enabled and w.deleted_at is null
    and w.current_version_id = ${entry.workflow?.currentVersionId ?? null}
    and exists (select 1 from memberships m
                where m.workspace_id = t.workspace_id and m.user_id = t.created_by)`;
}
