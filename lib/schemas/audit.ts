import { z } from "zod";

/** Who an audit row says acted (db/schema/audit.ts `actor_type`). */
export const AUDIT_ACTOR_TYPES = ["user", "token", "system", "run", "anonymous"] as const;
export const AuditActorType = z.enum(AUDIT_ACTOR_TYPES);
export type AuditActorType = z.infer<typeof AuditActorType>;

const text = z.string().trim().min(1).max(200);

/**
 * Filters of the audit log (settings page, `audit.list`, `GET /api/v1/audit`). `action` matches
 * exactly, or by prefix when it ends in `*` (`secret.*`). Newest first, keyset-paged.
 */
export const ListAuditInput = z.strictObject({
  actorType: AuditActorType.optional(),
  actorId: text.optional(),
  action: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .regex(/^[a-z0-9_.]+\*?$/, "Actions look like `secret.created`, or `secret.*` for a prefix")
    .optional(),
  targetType: text.optional(),
  targetId: text.optional(),
  from: z.coerce.date().optional(),
  to: z.coerce.date().optional(),
  limit: z.number().int().min(1).max(200).default(50),
  cursor: z.string().max(200).optional(),
});
export type ListAuditInput = z.input<typeof ListAuditInput>;
