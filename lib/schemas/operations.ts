import { z } from "zod";

/** The operations page's ranges (bounded: every query reads at most 7 days of rows, hourly). */
export const OPERATIONS_RANGES = ["24h", "7d"] as const;
export const OperationsRange = z.enum(OPERATIONS_RANGES);
export type OperationsRange = z.infer<typeof OperationsRange>;

export const OPERATIONS_RANGE_HOURS: Record<OperationsRange, number> = { "24h": 24, "7d": 168 };

export const GetOperationsInput = z.strictObject({ range: OperationsRange.default("24h") });

/** How many workflows the per-workflow table lists (the busiest first). */
export const OPERATIONS_MAX_WORKFLOWS = 20;

/** What `operations.overview` returns; times are ISO strings, durations milliseconds. */
export interface OperationsOverview {
  range: OperationsRange;
  from: string;
  to: string;
  /** One entry per hour of the range, oldest first, zero-filled. */
  timeline: { at: string; runs: number; failed: number; webhookRejects: number }[];
  totals: { runs: number; failed: number; failureRate: number };
  /** The busiest workflows of the range; `failed` counts failed and timed-out runs. */
  workflows: {
    workflowId: string;
    name: string;
    runs: number;
    failed: number;
    failureRate: number;
    /** Over runs that started and finished; null when none did. */
    p50Ms: number | null;
    p95Ms: number | null;
  }[];
  /** Right now, not over the range. */
  queue: { queued: number; oldestQueuedAt: string | null; running: number; waiting: number };
  gates: {
    waiting: number;
    oldest: {
      kind: "approval" | "task";
      id: string;
      runId: string;
      stepId: string;
      workflowName: string | null;
      since: string;
    } | null;
  };
  webhooks: {
    accepted: number;
    duplicates: number;
    rejected: number;
    /** The most frequent reasons of rejected deliveries. */
    topReasons: { reason: string; count: number }[];
  };
}
