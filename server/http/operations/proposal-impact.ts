import { defineOperation } from "../operation";
import { IdParams, JsonObject } from "./common";

export const getProposalImpactOp = defineOperation({
  method: "GET",
  path: "/proposals/{id}/impact",
  operationId: "getProposalImpact",
  summary: "In-flight impact of applying a proposal",
  description:
    "Before applying: `inFlight` — the unfinished runs on the base version (up to 100 listed, `total` counts all; they keep their pinned version and finish on it) and `onOtherVersions`; `triggers` — the enabled webhooks (`url`), schedules (`cron`, zone, `nextAt`) and event triggers (`event`) that start the new version once it is applied.",
  tag: "Proposals",
  minRole: "viewer",
  params: IdParams,
  responses: { 200: { description: "The impact", schema: JsonObject } },
});
