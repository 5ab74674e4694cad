import { z } from "zod";
import { ListScheduleTicksInput } from "@/lib/schemas/schedules";
import { CreateTriggerInput, FireTriggerInput, UpdateTriggerInput } from "@/lib/schemas/triggers";
import { defineOperation } from "../operation";
import { IdParams, Limit, page, Trigger } from "./common";

const tag = "Triggers";

/** CreateTriggerInput without `workflowId` (it comes from the path), still discriminated on `kind`. */
const [webhook, schedule, event] = CreateTriggerInput.options;
const CreateTriggerBody = z.discriminatedUnion("kind", [
  webhook.omit({ workflowId: true }).strict(),
  schedule.omit({ workflowId: true }).strict(),
  event.omit({ workflowId: true }).strict(),
]);

export const listWorkflowTriggersOp = defineOperation({
  method: "GET",
  path: "/workflows/{id}/triggers",
  operationId: "listWorkflowTriggers",
  summary: "List a workflow's triggers",
  description: "With each trigger's last run status and last delivery.",
  tag,
  minRole: "viewer",
  params: IdParams,
  responses: {
    200: { description: "Triggers", schema: z.object({ items: z.array(Trigger) }) },
  },
});

export const createTriggerOp = defineOperation({
  method: "POST",
  path: "/workflows/{id}/triggers",
  operationId: "createTrigger",
  summary: "Create a webhook, schedule or event trigger",
  description:
    "`kind` selects the config shape (strict: unknown keys are refused). A webhook's signing secret is in this response only.",
  tag,
  minRole: "editor",
  params: IdParams,
  body: CreateTriggerBody,
  responses: {
    201: {
      description: "Created",
      schema: z.object({ trigger: Trigger, secret: z.string().nullable().optional() }),
    },
  },
  errors: [409],
});

export const getTriggerOp = defineOperation({
  method: "GET",
  path: "/triggers/{id}",
  operationId: "getTrigger",
  summary: "Get a trigger",
  tag,
  minRole: "viewer",
  params: IdParams,
  responses: { 200: { description: "The trigger", schema: Trigger } },
});

export const updateTriggerOp = defineOperation({
  method: "PATCH",
  path: "/triggers/{id}",
  operationId: "updateTrigger",
  summary: "Update a trigger",
  description: "`config` replaces the whole config, validated against the trigger's kind.",
  tag,
  minRole: "editor",
  params: IdParams,
  body: UpdateTriggerInput.omit({ triggerId: true }).strict(),
  responses: { 200: { description: "The updated trigger", schema: Trigger } },
  errors: [409],
});

export const deleteTriggerOp = defineOperation({
  method: "DELETE",
  path: "/triggers/{id}",
  operationId: "deleteTrigger",
  summary: "Delete a trigger",
  tag,
  minRole: "editor",
  params: IdParams,
  responses: { 200: { description: "Deleted", schema: z.object({ ok: z.literal(true) }) } },
});

const enabledOp = (enabled: boolean) =>
  defineOperation({
    method: "POST",
    path: `/triggers/{id}/${enabled ? "enable" : "disable"}`,
    operationId: enabled ? "enableTrigger" : "disableTrigger",
    summary: enabled ? "Enable a trigger" : "Disable a trigger",
    tag,
    minRole: "editor",
    params: IdParams,
    responses: { 200: { description: "The trigger", schema: Trigger } },
  });
export const enableTriggerOp = enabledOp(true);
export const disableTriggerOp = enabledOp(false);

export const takeOverTriggerOp = defineOperation({
  method: "POST",
  path: "/triggers/{id}/take-over",
  operationId: "takeOverTrigger",
  summary: "Become a trigger's owner",
  description:
    "The caller (a token acts for its creator) becomes the trigger's owner: the user its webhook, schedule and event runs count against. A trigger whose owner left the workspace or was deleted starts no runs until someone takes it over.",
  tag,
  minRole: "editor",
  params: IdParams,
  responses: { 200: { description: "The trigger with its new owner", schema: Trigger } },
});

export const fireTriggerOp = defineOperation({
  method: "POST",
  path: "/triggers/{id}/fire",
  operationId: "fireTrigger",
  summary: "Fire a trigger now",
  description: "Starts one run with the trigger's static input, or `input` instead.",
  tag,
  minRole: "editor",
  params: IdParams,
  body: FireTriggerInput.omit({ triggerId: true }).strict(),
  responses: {
    201: {
      description: "The run",
      schema: z.object({ runId: z.string(), status: z.string() }),
    },
  },
  errors: [412, 429],
});

export const listTriggerDeliveriesOp = defineOperation({
  method: "GET",
  path: "/triggers/{id}/deliveries",
  operationId: "listTriggerDeliveries",
  summary: "A trigger's recent deliveries",
  description: "Newest first, with each started run's status and rejection reasons.",
  tag,
  minRole: "viewer",
  params: IdParams,
  query: z.object({
    limit: Limit(100),
    cursor: z.iso.datetime().optional(),
  }),
  responses: { 200: { description: "One page", schema: page("Deliveries") } },
});

export const listTriggerTicksOp = defineOperation({
  method: "GET",
  path: "/triggers/{id}/ticks",
  operationId: "listTriggerTicks",
  summary: "A schedule trigger's ticks",
  description: "Fired, skipped, missed and failed ticks, newest first.",
  tag,
  minRole: "viewer",
  params: IdParams,
  query: z.object({ limit: Limit(200), cursor: ListScheduleTicksInput.shape.cursor }),
  responses: { 200: { description: "One page", schema: page("Ticks") } },
});
