import { z } from "zod";
import {
  CancelRunInput,
  ListRunsInput,
  RerunInput,
  RUN_LIST_STATUSES,
  StartInlineRunInput,
  StartRunInput,
  TriggerType,
} from "@/lib/schemas/runs";
import { TestStepInput } from "@/lib/schemas/test-runs";
import { defineOperation } from "../operation";
import { Id, IdParams, JsonObject, Limit, pageOf, QueryBool, RunEvent, RunSummary } from "./common";

const tag = "Runs";

const RunFilters = {
  status: z
    .array(z.enum(RUN_LIST_STATUSES))
    .max(8)
    .optional()
    .meta({ description: "Repeat the key or separate with commas" }),
  trigger: TriggerType.optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  retrying: QueryBool,
  waitingLongerThanMinutes: z.coerce.number().int().min(1).max(525_600).optional(),
  tests: ListRunsInput.shape.tests.meta({
    description: "Editor test runs: `exclude` (default), `include` or `only`",
  }),
  limit: Limit(200),
  cursor: ListRunsInput.shape.cursor,
};

export const listRunsOp = defineOperation({
  method: "GET",
  path: "/runs",
  operationId: "listRuns",
  summary: "List runs",
  description: "Newest first; the same filters as the runs page.",
  tag,
  minRole: "viewer",
  query: z.object({
    workflowId: Id.optional(),
    inline: QueryBool.meta({ description: "Only inline runs (no workflow)" }),
    ...RunFilters,
  }),
  responses: { 200: { description: "One page", schema: pageOf(RunSummary) } },
});

export const startInlineRunOp = defineOperation({
  method: "POST",
  path: "/runs",
  operationId: "startInlineRun",
  summary: "Run an unsaved definition (inline run)",
  description:
    "Validates `definition` with the workspace policy (400 with every issue and its path; nothing stored), snapshots it by hash and runs it like a published version, with `workflowId` null. Approval gates and tasks work as in a saved workflow (their rows have `workflowId` null); only propose_change steps need a saved workflow. `Idempotency-Key` works as for starting a run.",
  tag,
  minRole: "editor",
  body: StartInlineRunInput.strict(),
  responses: {
    201: { description: "Started", schema: JsonObject },
    200: { description: "The run an earlier request with this key started", schema: JsonObject },
  },
  errors: [409, 412, 429],
});

export const listWorkflowRunsOp = defineOperation({
  method: "GET",
  path: "/workflows/{id}/runs",
  operationId: "listWorkflowRuns",
  summary: "List a workflow's runs",
  tag,
  minRole: "viewer",
  params: IdParams,
  query: z.object(RunFilters),
  responses: { 200: { description: "One page", schema: pageOf(RunSummary) } },
});

export const startRunOp = defineOperation({
  method: "POST",
  path: "/workflows/{id}/runs",
  operationId: "startRun",
  summary: "Start a run",
  description:
    "On the current published version (or `versionId`). An `Idempotency-Key` header or `idempotencyKey` returns the same run on repeats (200 instead of 201).",
  tag,
  minRole: "editor",
  params: IdParams,
  body: StartRunInput.omit({ workflowId: true }).strict(),
  responses: {
    201: { description: "Started", schema: JsonObject },
    200: { description: "The run an earlier request with this key started", schema: JsonObject },
  },
  errors: [409, 412, 429],
});

export const testStepOp = defineOperation({
  method: "POST",
  path: "/workflows/{id}/test",
  operationId: "testStep",
  summary: "Test a step of the draft (test run)",
  description:
    "Runs the workflow's draft (or `definition`) cut to `stepId` and its ancestors as a test run: `mode` `step` reuses the last real run's outputs of the ancestors, `up_to` runs them. Side-effecting steps (http, script, notify, llm, agent, tool, emit_event, propose_change, …) reuse their last output unless `sideEffects.<step>` is `execute`; one with no output to reuse must be confirmed (400 naming it). Test runs count against no quota, publish no events (no event triggers, no `emit_event` delivery) and are listed only with `tests=include|only`. See docs/runs.md \"Testing while building\".",
  tag,
  minRole: "editor",
  params: IdParams,
  body: TestStepInput.omit({ workflowId: true }).strict(),
  responses: { 201: { description: "Started", schema: JsonObject } },
  errors: [412, 429],
});

export const getRunOp = defineOperation({
  method: "GET",
  path: "/runs/{id}",
  operationId: "getRun",
  summary: "Get a run",
  description: "With `requiresApproval` (step, prompt, items, resumeToken) while a gate waits.",
  tag,
  minRole: "viewer",
  params: IdParams,
  responses: { 200: { description: "The run", schema: JsonObject } },
});

export const listRunStepsOp = defineOperation({
  method: "GET",
  path: "/runs/{id}/steps",
  operationId: "listRunSteps",
  summary: "A run's steps",
  tag,
  minRole: "viewer",
  params: IdParams,
  responses: {
    200: { description: "Steps", schema: z.object({ steps: z.array(JsonObject) }) },
  },
});

export const listRunEventsOp = defineOperation({
  method: "GET",
  path: "/runs/{id}/events",
  operationId: "listRunEvents",
  summary: "A run's event history (JSON, or a live Server-Sent Events stream)",
  description:
    "JSON: events after `?after=<event id>`. With `Accept: text/event-stream`: a stream of `id:`/`event:`/`data:` messages that resumes after `Last-Event-ID` (or `after`), sends `: heartbeat` comments, ends with `event: end` once the run is finished, and closes after `timeout` seconds (default 300) — reconnect with Last-Event-ID.",
  tag,
  minRole: "viewer",
  params: IdParams,
  query: z.object({
    after: z.coerce.number().int().min(0).optional(),
    timeout: z.coerce.number().int().min(1).max(3600).optional(),
  }),
  responses: {
    200: {
      description: "Events (JSON), or `text/event-stream` when asked for",
      schema: z.object({ events: z.array(RunEvent) }),
    },
  },
});

export const cancelRunOp = defineOperation({
  method: "POST",
  path: "/runs/{id}/cancel",
  operationId: "cancelRun",
  summary: "Cancel a run",
  tag,
  minRole: "editor",
  params: IdParams,
  body: CancelRunInput.omit({ runId: true }).strict(),
  responses: { 200: { description: "Cancel requested or done", schema: JsonObject } },
  errors: [409],
});

export const approveRunOp = defineOperation({
  method: "POST",
  path: "/runs/{id}/approve",
  operationId: "approveRun",
  summary: "Decide the approval gate a resume token names",
  tag,
  minRole: "approver",
  params: IdParams,
  body: z.strictObject({
    approve: z.boolean(),
    resumeToken: z.string().max(500).meta({ description: "`wrf_rt_…` from GET /runs/{id}" }),
    reason: z.string().max(2_000).optional().meta({
      description:
        "Why: kept with the decision and in the audit. Required (not blank) when `approve` is false — a rejection without one is a 400 naming `reason`.",
    }),
    form: z.record(z.string(), z.unknown()).optional().meta({
      description:
        "The gate's form values (`pendingApprovals[].form` in GET /runs/{id} lists the fields); required fields must be given to approve, ignored when rejecting. A bad value is a 400 naming `form.<field>`.",
    }),
  }),
  responses: { 200: { description: "The decision", schema: JsonObject } },
  errors: [409],
});

export const rerunRunOp = defineOperation({
  method: "POST",
  path: "/runs/{id}/rerun",
  operationId: "rerunRun",
  summary: "Rerun a run (whole, or from a step)",
  description:
    "A new run: the whole run, or from `fromStepId` (earlier steps' outputs reused), on the pinned version or `version: current`, optionally with a new `input`.",
  tag,
  minRole: "editor",
  params: IdParams,
  body: RerunInput.omit({ runId: true })
    .extend({
      dryRun: z.boolean().optional().meta({
        description:
          "true: start nothing, answer the preview of GET /runs/{id}/rerun/preview (200) — the steps that would repeat, with each side effect's idempotency key",
      }),
    })
    .strict(),
  responses: {
    201: { description: "The new run", schema: JsonObject },
    200: { description: "The rerun an earlier request with this key started", schema: JsonObject },
  },
  errors: [412, 429],
});
