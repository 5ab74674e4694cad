import {
  CreateTriggerInput,
  EmitEventsBody,
  FireTriggerInput,
  ListTriggersInput,
  RotateWebhookSecretInput,
  SetTriggerEnabledInput,
  TakeOverTriggerInput,
  TriggerRef,
  UpdateTriggerInput,
} from "@/lib/schemas/triggers";
import { createTrigger } from "../../services/triggers/create-trigger";
import { deleteTrigger } from "../../services/triggers/delete-trigger";
import { fireTrigger } from "../../services/triggers/fire-trigger";
import { getTrigger } from "../../services/triggers/get-trigger";
import {
  ListTriggerDeliveriesInput,
  listTriggerDeliveries,
} from "../../services/triggers/list-trigger-deliveries";
import { listTriggers } from "../../services/triggers/list-triggers";
import { rotateWebhookSecret } from "../../services/triggers/rotate-webhook-secret";
import { setTriggerEnabled } from "../../services/triggers/set-trigger-enabled";
import { takeOverTrigger } from "../../services/triggers/take-over-trigger";
import { updateTrigger } from "../../services/triggers/update-trigger";
import { emitEvents } from "../../services/events/emit-events";
import { roleProcedure, router } from "../init";

const viewer = roleProcedure("viewer");
const editor = roleProcedure("editor");

export const triggerRouter = router({
  list: viewer
    .input(ListTriggersInput.optional())
    .query(({ ctx, input }) => listTriggers({ ctx: ctx.svc, input })),
  get: viewer.input(TriggerRef).query(({ ctx, input }) => getTrigger({ ctx: ctx.svc, input })),
  deliveries: viewer
    .input(ListTriggerDeliveriesInput)
    .query(({ ctx, input }) => listTriggerDeliveries({ ctx: ctx.svc, input })),
  create: editor
    .input(CreateTriggerInput)
    .mutation(({ ctx, input }) => createTrigger({ ctx: ctx.svc, input })),
  update: editor
    .input(UpdateTriggerInput)
    .mutation(({ ctx, input }) => updateTrigger({ ctx: ctx.svc, input })),
  setEnabled: editor
    .input(SetTriggerEnabledInput)
    .mutation(({ ctx, input }) => setTriggerEnabled({ ctx: ctx.svc, input })),
  delete: editor
    .input(TriggerRef)
    .mutation(({ ctx, input }) => deleteTrigger({ ctx: ctx.svc, input })),
  fire: editor
    .input(FireTriggerInput)
    .mutation(({ ctx, input }) => fireTrigger({ ctx: ctx.svc, input })),
  /** The caller becomes the trigger's owner (its runs count against them). */
  takeOver: editor
    .input(TakeOverTriggerInput)
    .mutation(({ ctx, input }) => takeOverTrigger({ ctx: ctx.svc, input })),
  rotateSecret: editor
    .input(RotateWebhookSecretInput)
    .mutation(({ ctx, input }) => rotateWebhookSecret({ ctx: ctx.svc, input })),
  /** Sends a test event (event triggers); system names are refused. */
  emitEvent: editor
    .input(EmitEventsBody)
    .mutation(({ ctx, input }) => emitEvents({ ctx: ctx.svc, input })),
});
