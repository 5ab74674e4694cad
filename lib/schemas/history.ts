import { z } from "zod";

/**
 * The kinds of rows the per-workspace history chain covers (issue #29 item 7). Each chain entry
 * names one row of one of these tables by id; verification reloads that row's current content.
 */
export const HISTORY_KINDS = [
  "audit",
  "version",
  "proposal_review",
  "proposal_apply",
  "approval_decision",
] as const;
export const HistoryKind = z.enum(HISTORY_KINDS);
export type HistoryKind = z.infer<typeof HistoryKind>;

/** The hash every workspace's chain starts from (seq 0 has no row). */
export const GENESIS_HASH = `sha256:${"0".repeat(64)}`;

/** What verification found wrong at one link; `null` problem lists mean the chain is intact. */
export const HISTORY_PROBLEMS = [
  "content_changed",
  "row_missing",
  "link_broken",
  "seq_gap",
  "head_mismatch",
  "anchor_mismatch",
] as const;
export type HistoryProblem = (typeof HISTORY_PROBLEMS)[number];

export const VerifyHistoryInput = z
  .object({
    /** A head from an earlier export or verification: the chain must still contain it unchanged. */
    anchor: z
      .object({
        seq: z.number().int().min(1),
        hash: z.string().regex(/^sha256:[0-9a-f]{64}$/, "a sha256:<64 hex> hash"),
      })
      .strict()
      .optional(),
  })
  .strict();
export type VerifyHistoryInput = z.infer<typeof VerifyHistoryInput>;

export const BrokenLink = z.object({
  seq: z.number().int(),
  kind: HistoryKind,
  rowId: z.string(),
  problem: z.enum(HISTORY_PROBLEMS),
  message: z.string(),
});
export type BrokenLink = z.infer<typeof BrokenLink>;

export const VerifyHistoryResult = z.object({
  ok: z.boolean(),
  /** Links checked (entries in the chain). */
  checked: z.number().int(),
  /** Covered rows deleted by retention (recorded in the chain as `history.pruned` audit rows). */
  pruned: z.number().int(),
  head: z.object({ seq: z.number().int(), hash: z.string() }),
  /** The first broken link, or null when every link verifies. */
  firstBroken: BrokenLink.nullable(),
  verifiedAt: z.string(),
});
export type VerifyHistoryResult = z.infer<typeof VerifyHistoryResult>;
