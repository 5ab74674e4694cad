import "server-only";
import { pinRunRepository } from "@/server/services/run-state/pin-run-repository";
import { runtimeNow, stepRuntime } from "./runtime";

/** Pins the run's repository ref to a commit before step 1 (a durable step: replays keep it). */
export async function pinRepositoryBody(runId: string) {
  const { db, keys, config } = await stepRuntime();
  return pinRunRepository(db, keys, config, runId, runtimeNow);
}
