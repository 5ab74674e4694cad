import "server-only";
import { buildRunEnvelope, type RunEnvelope } from "@/lib/runs/envelope";
import type { ServiceContext } from "../context";
import { getRun } from "./get-run";
import { listRunSteps } from "./list-run-steps";

// The shape and its mapping are pure and shared with the CLI (lib/runs/envelope.ts).
export {
  ENVELOPE_STATUSES,
  envelopeStatus,
  type EnvelopeStatus,
  type EnvelopeStep,
  type RunEnvelope,
} from "@/lib/runs/envelope";

/** The envelope of one run of the caller's workspace (viewer and up). */
export async function getRunEnvelope({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: unknown;
}): Promise<RunEnvelope> {
  const run = await getRun({ ctx, input });
  const attempts = await listRunSteps({ ctx, input: { runId: run.id } });
  return buildRunEnvelope(run, attempts);
}
