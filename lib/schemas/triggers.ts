import { z } from "zod";
import { plainText } from "./text";
import { Condition, conditionRefs } from "@/lib/workflow/conditions";
import { quote } from "@/lib/workflow/json";

/**
 * Trigger configuration (SPEC §7), shared by the server (validated on every write) and the UI
 * (forms). One discriminated union on `kind`; each kind's `config` is strict, so a typo in a key
 * is an error, never a silently ignored setting.
 */

export const TRIGGER_KINDS = ["webhook", "schedule", "event"] as const;
export const TriggerKind = z.enum(TRIGGER_KINDS);
export type TriggerKind = z.infer<typeof TriggerKind>;

/** `$.a.b` / `$.items[0].id` (the JSON body), `query.name`, `header.x-name`. */
export const MAPPING_SOURCE_RE =
  /^(\$(\.[A-Za-z_][A-Za-z0-9_-]*|\[\d+\])*|query\.[A-Za-z0-9_.-]+|header\.[A-Za-z0-9_-]+)$/;
const InputName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an input name");
const MappingSource = z
  .string()
  .regex(MAPPING_SOURCE_RE, "a source such as $.order.id, query.name or header.x-request-id");
export const InputMapping = z
  .record(InputName, MappingSource)
  .refine((m) => Object.keys(m).length <= 50, "at most 50 mapped inputs");

const StaticInput = z.record(z.string(), z.unknown()).default({});

export const SIGNATURE_PRESETS = ["hmac", "github", "stripe", "standard", "none"] as const;
export const SignaturePreset = z.enum(SIGNATURE_PRESETS);
export type SignaturePreset = z.infer<typeof SignaturePreset>;

const HeaderName = z.string().regex(/^[A-Za-z0-9-]{1,100}$/, "an HTTP header name");

export const WebhookVerification = z.strictObject({
  preset: SignaturePreset.default("hmac"),
  /** Generic HMAC: the header carrying the signature, its prefix and encoding. */
  header: HeaderName.default("X-Signature"),
  prefix: z.string().max(40).default("sha256="),
  encoding: z.enum(["hex", "base64"]).default("hex"),
  /** Generic HMAC: an optional timestamp header; when set, the signed string is `${ts}.${body}`. */
  timestampHeader: HeaderName.optional(),
  toleranceSeconds: z.number().int().min(30).max(3600).default(300),
});
export type WebhookVerification = z.infer<typeof WebhookVerification>;

export const WEBHOOK_METHODS = ["POST", "PUT", "PATCH", "GET", "DELETE"] as const;

/** Header name → the exact value a delivery must carry (names compare case-insensitively). */
export const RequiredHeaders = z
  .record(z.string(), z.string().min(1, "a header value").max(500))
  .superRefine((headers, ctx) => {
    const names = Object.keys(headers);
    if (names.length > 20) ctx.addIssue({ code: "custom", message: "at most 20 required headers" });
    const seen = new Map<string, string>();
    for (const name of names) {
      const first = seen.get(name.toLowerCase());
      if (!HeaderName.safeParse(name).success)
        ctx.addIssue({
          code: "custom",
          path: [name],
          message: `${quote(name)} is not an HTTP header name (letters, digits and dashes)`,
        });
      else if (first !== undefined)
        ctx.addIssue({
          code: "custom",
          path: [name],
          message: `${quote(name)} repeats ${quote(first)}: header names are case-insensitive`,
        });
      else seen.set(name.toLowerCase(), name);
    }
  });

/**
 * A webhook's filter reads the delivery as the run will see it (`trigger.method`,
 * `trigger.query.…`, `trigger.headers.…` with lower-case names, `trigger.body.…`): nothing else
 * exists before the run does.
 */
export const WebhookFilter = Condition.superRefine((condition, ctx) => {
  const refs = conditionRefs(condition);
  const roots =
    "a webhook filter reads the delivery as trigger.body.…, trigger.headers.…, trigger.query.… or trigger.method";
  for (const { error, location } of refs.errors)
    ctx.addIssue({
      code: "custom",
      path: [...location],
      message:
        error.code === "UNKNOWN_TEMPLATE_ROOT"
          ? `${error.message.split(";")[0]}: ${roots}`
          : error.message,
    });
  for (const { reference, location } of refs.references)
    if (reference.root !== "trigger")
      ctx.addIssue({
        code: "custom",
        path: [...location],
        message: `"${reference.root}" does not exist before the run starts: ${roots}`,
      });
});
export const MAX_WEBHOOK_BODY_BYTES = 10 * 1024 * 1024;

export const WebhookConfig = z.strictObject({
  method: z.enum(WEBHOOK_METHODS).default("POST"),
  verification: WebhookVerification.default({
    preset: "hmac",
    header: "X-Signature",
    prefix: "sha256=",
    encoding: "hex",
    toleranceSeconds: 300,
  }),
  maxBodyBytes: z
    .number()
    .int()
    .min(1024)
    .max(MAX_WEBHOOK_BODY_BYTES)
    .default(1024 * 1024),
  mapping: InputMapping.default({}),
  input: StaticInput,
  /** Deliveries without these exact header values are answered 200 and recorded `skipped`. */
  requireHeaders: RequiredHeaders.optional(),
  /** Deliveries for which this condition is false are answered 200 and recorded `skipped`. */
  filter: WebhookFilter.optional(),
  /**
   * Where the run's repository ref comes from (a mapping source such as `$.after`): the run pins
   * that ref instead of the definition's, as a manual run's override would.
   */
  repositoryRef: MappingSource.optional(),
  /**
   * A delivery that declares a JSON content type but has no body is refused (400 empty_body)
   * unless this is set: a sender that lost its payload must not start a run with nothing.
   * GET webhooks are exempt (a GET has no body).
   */
  allowEmptyBody: z.boolean().default(false),
  /**
   * `delivery_id`: the preset's delivery id (GitHub X-GitHub-Delivery, Stripe event id, Standard
   * Webhooks webhook-id, generic `idHeader`); `body_hash`: sha256 of the raw body; `none`.
   */
  idempotency: z.enum(["delivery_id", "body_hash", "none"]).default("delivery_id"),
  idHeader: HeaderName.default("Idempotency-Key"),
  rateLimit: z
    .strictObject({
      perMinute: z.number().int().min(1).max(60_000).default(120),
      burst: z.number().int().min(1).max(10_000).default(30),
    })
    .default({ perMinute: 120, burst: 30 }),
  /** `async`: answer 202 {runId}; `sync`: wait up to `syncTimeoutSeconds` for the run's output. */
  mode: z.enum(["async", "sync"]).default("async"),
  syncTimeoutSeconds: z.number().int().min(1).max(30).default(10),
});
export type WebhookConfig = z.infer<typeof WebhookConfig>;

export const ScheduleConfig = z.strictObject({
  /** Five fields: minute hour day-of-month month day-of-week. */
  cron: z.string().trim().min(9).max(200),
  /**
   * An IANA zone (e.g. Europe/Berlin) that overrides the workflow's `timezone` for this trigger.
   * Absent: the schedule follows the zone of the workflow's current published version (UTC when
   * none), see lib/triggers/schedule-zone.ts.
   */
  timezone: z
    .string()
    .trim()
    .min(1, "an IANA zone name, or leave timezone out to use the workflow's zone")
    .max(64)
    .optional(),
  misfire: z.enum(["skip", "latest"]).default("skip"),
  catchUpWindowMinutes: z
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 60)
    .default(60),
  overlap: z.enum(["allow", "skip", "queue"]).default("skip"),
  input: StaticInput,
});
export type ScheduleConfig = z.infer<typeof ScheduleConfig>;

/** Event names: `order.paid`, `run.completed`; a trailing `*` matches a prefix (`order.*`). */
export const EVENT_NAME_RE = /^[A-Za-z0-9_][A-Za-z0-9_.:/-]{0,199}$/;
export const EVENT_PATTERN_RE = /^([A-Za-z0-9_][A-Za-z0-9_.:/-]{0,199}|[A-Za-z0-9_.:/-]{0,199}\*)$/;

export const EventConfig = z.strictObject({
  event: z
    .string()
    .regex(EVENT_PATTERN_RE, "an event name such as order.paid, or a prefix pattern like order.*"),
  /** A structured condition over the event as `trigger.name`, `trigger.data.…`, `trigger.source.…`. */
  filter: Condition.optional(),
  mapping: InputMapping.default({}),
  input: StaticInput,
});
export type EventConfig = z.infer<typeof EventConfig>;

const id = z.string().min(1).max(64);
const TriggerName = plainText(z.string().trim().min(1, "a name").max(120));
/** Webhook path segment: lower-case letters, digits and dashes; random when omitted. */
export const WEBHOOK_PATH_RE = /^[a-z0-9][a-z0-9-]{2,79}$/;

export const CreateTriggerInput = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("webhook"),
    workflowId: id,
    name: TriggerName,
    enabled: z.boolean().default(true),
    path: z.string().regex(WEBHOOK_PATH_RE, "3–80 lower-case letters, digits or dashes").optional(),
    config: WebhookConfig,
  }),
  z.object({
    kind: z.literal("schedule"),
    workflowId: id,
    name: TriggerName,
    enabled: z.boolean().default(true),
    config: ScheduleConfig,
  }),
  z.object({
    kind: z.literal("event"),
    workflowId: id,
    name: TriggerName,
    enabled: z.boolean().default(true),
    config: EventConfig,
  }),
]);
export type CreateTriggerInput = z.input<typeof CreateTriggerInput>;

/** Edits keep the kind; `config` is replaced whole (validated against the trigger's kind). */
export const UpdateTriggerInput = z.object({
  triggerId: id,
  name: TriggerName.optional(),
  config: z.record(z.string(), z.unknown()).optional(),
});
export type UpdateTriggerInput = z.input<typeof UpdateTriggerInput>;

export const TriggerRef = z.object({ triggerId: id });
/** An editor makes themselves the trigger's owner: the user its runs count against. */
export const TakeOverTriggerInput = TriggerRef;
export const SetTriggerEnabledInput = z.object({ triggerId: id, enabled: z.boolean() });
export const ListTriggersInput = z.object({ workflowId: id.optional() });
export const FireTriggerInput = z.object({
  triggerId: id,
  /** Replaces the mapped input for this one run (default: the trigger's static input). */
  input: z.record(z.string(), z.unknown()).optional(),
});
export const RotateWebhookSecretInput = z.object({
  triggerId: id,
  /** How long the old secret keeps verifying (0 = revoke at once). */
  graceMinutes: z
    .number()
    .int()
    .min(0)
    .max(7 * 24 * 60)
    .default(60),
});
export const PreviewScheduleInput = z.strictObject({
  cron: z.string().max(200),
  /** The trigger's override; absent or blank: the workflow's zone (`workflowId`), else UTC. */
  timezone: z.string().max(64).optional(),
  /** Resolve an absent `timezone` to this workflow's zone, as its schedules would. */
  workflowId: id.optional(),
  count: z.number().int().min(1).max(50).default(10),
  /** List the fire times strictly after this instant (default: now); page on with `nextFrom`. */
  from: z.iso
    .datetime({ offset: true })
    .refine((v) => Math.abs(Date.parse(v) - Date.now()) < 50 * 366 * 86_400_000, {
      message: "must be within 50 years of now",
    })
    .optional(),
});

/** `POST /api/v1/events`: one event or a batch. */
export const EmitEventBody = z.strictObject({
  name: z.string().regex(EVENT_NAME_RE, "an event name such as order.paid"),
  data: z.record(z.string(), z.unknown()).default({}),
  /** A caller-chosen id makes emitting idempotent for 24 h. */
  id: z.string().min(1).max(200).optional(),
});
export const MAX_EVENTS_PER_REQUEST = 100;
export const EmitEventsBody = z.union([
  EmitEventBody,
  z
    .array(EmitEventBody)
    .min(1, "send at least 1 event")
    .max(MAX_EVENTS_PER_REQUEST, `send at most ${MAX_EVENTS_PER_REQUEST} events per request`),
]);

/** Names reserved for system events: API callers cannot emit them. */
export const SYSTEM_EVENT_NAMES = [
  "run.started",
  "run.completed",
  "run.failed",
  "run.cancelled",
  "proposal.applied",
  "task.completed",
  "task.failed",
] as const;

export function configSchemaFor(kind: TriggerKind) {
  return kind === "webhook" ? WebhookConfig : kind === "schedule" ? ScheduleConfig : EventConfig;
}
