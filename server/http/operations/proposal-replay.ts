import { defineOperation } from "../operation";
import { IdParams, JsonObject } from "./common";

export const getProposalReplayOp = defineOperation({
  method: "GET",
  path: "/proposals/{id}/replay",
  operationId: "getProposalReplay",
  summary: "Replay evidence and verification level of a proposal",
  description:
    "The engine's evidence for a proposal (issue #29): `verification` — `level` (`verified`, `partial` or `unproven`) with its `reasons`, the changed steps and how many replayed runs exercised each, and the unverified steps; `requireVerifiedToApply` — whether the workspace refuses to apply anything else (an admin may override with `overrideReason` on apply); `dryRun.runs` and `shadowRuns` — per replayed run its `outcome` (`same_outcome`, `different_outcome`, `cannot_tell`) and `steps` (`path`, `verdict`: `same`, `different_output` with a JSON `diff`, `different_path`, `unverified` with its `reason`). Side-effecting steps are served from the original run's recording, never executed.",
  tag: "Proposals",
  minRole: "viewer",
  params: IdParams,
  responses: { 200: { description: "The evidence", schema: JsonObject } },
});
