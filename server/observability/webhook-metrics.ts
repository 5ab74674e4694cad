import "server-only";
import { isMetricsEnabled } from "./config";
import { metrics } from "./registry";

/** A reason code as a label value: the receiver's error codes are snake_case words. */
const CODE = /^[a-z][a-z0-9_]{0,39}$/;

/**
 * Counts one answer of the webhook receiver (server/http/hooks.ts) by outcome and reason code.
 * Decided from the answer alone (the receiver's delivery rows say the same in more detail), so
 * the receiver itself stays free of metric calls. Skip reasons are free text: counted as one
 * reason, `filtered`.
 */
export function countWebhookAnswer(answer: { status: number; body: Record<string, unknown> }) {
  if (!isMetricsEnabled()) return;
  const body = answer.body;
  const error = body.error as { code?: unknown } | undefined;
  let outcome: string;
  let reason: string;
  if (error) {
    outcome = answer.status >= 500 ? "failed" : "rejected";
    reason = typeof error.code === "string" && CODE.test(error.code) ? error.code : "other";
  } else if (body.duplicate === true) {
    outcome = "duplicate";
    reason = "delivery_key";
  } else if (body.skipped === true) {
    outcome = "skipped";
    reason = "filtered";
  } else {
    outcome = "accepted";
    reason = "none";
  }
  metrics().webhookDeliveries.inc({ outcome, reason });
}
