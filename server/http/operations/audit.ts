import { z } from "zod";
import { AuditActorType, ListAuditInput } from "@/lib/schemas/audit";
import { VerifyHistoryResult } from "@/lib/schemas/history";
import { defineOperation } from "../operation";
import { JsonObject, Limit, pageOf } from "./common";

const Timestamp = z.iso.datetime({ offset: true });

/** Not exported: index.ts takes every export of this module for an operation. */
const AuditEntry = z
  .looseObject({
    id: z.number().int(),
    createdAt: Timestamp,
    actorType: AuditActorType,
    actorId: z.string().nullable(),
    actorName: z.string().nullable(),
    action: z.string(),
    targetType: z.string().nullable(),
    targetId: z.string().nullable(),
    clientAddress: z
      .string()
      .nullable()
      .meta({ description: "IP address of the request that made the change; null outside one" }),
    userAgent: z.string().nullable().meta({ description: "User-Agent of that request" }),
    details: JsonObject.meta({ description: "Secret-named keys are redacted" }),
    chain: z
      .object({
        seq: z.number().int(),
        hash: z.string(),
        prevHash: z.string(),
        contentHash: z.string(),
      })
      .nullable()
      .meta({
        description:
          "This row's link in the workspace's history chain (GET /audit/verify); null for rows written before the chain existed",
      }),
  })
  .meta({ id: "AuditEntry" });

export const listAuditOp = defineOperation({
  method: "GET",
  path: "/audit",
  operationId: "listAudit",
  summary: "The workspace's audit log",
  description:
    "Newest first, append-only. `action` matches exactly or by prefix (`secret.*`). With `Accept: application/x-ndjson` or `format=ndjson`: every matching entry (up to 100,000), one JSON object per line, and no paging.",
  tag: "Audit",
  minRole: "admin",
  query: z.object({
    actorType: ListAuditInput.shape.actorType,
    actorId: ListAuditInput.shape.actorId,
    action: ListAuditInput.shape.action,
    targetType: ListAuditInput.shape.targetType,
    targetId: ListAuditInput.shape.targetId,
    from: Timestamp.optional(),
    to: Timestamp.optional(),
    limit: Limit(200),
    cursor: ListAuditInput.shape.cursor,
    format: z.enum(["json", "ndjson"]).optional(),
  }),
  responses: {
    200: {
      description: "One page (JSON), or `application/x-ndjson` when asked for",
      schema: pageOf(AuditEntry),
    },
  },
});

export const verifyHistoryOp = defineOperation({
  method: "GET",
  path: "/audit/verify",
  operationId: "verifyHistory",
  summary: "Verify the workspace's tamper-evident history",
  description:
    "Recomputes the workspace's hash chain over published versions, proposal reviews and applies, approval decisions and audit rows from their current content, and names the first broken link (`firstBroken`: seq, kind, row id, problem, message). Give `anchorSeq` and `anchorHash` (a head from an earlier verification or export) to check the chain still contains it. 200 either way: `ok` says whether the chain verifies.",
  tag: "Audit",
  minRole: "admin",
  query: z.object({
    anchorSeq: z.coerce.number().int().min(1).optional(),
    anchorHash: z
      .string()
      .regex(/^sha256:[0-9a-f]{64}$/, "a sha256:<64 hex> hash")
      .optional(),
  }),
  responses: {
    200: {
      description: "The verification result",
      schema: VerifyHistoryResult.meta({ id: "HistoryVerification" }),
    },
  },
});
