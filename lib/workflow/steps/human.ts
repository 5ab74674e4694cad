/** Configs of the human and timing steps: approval, task, delay, wait_for_event and emit_event. */
import { z } from "zod";
import { ROLES } from "../../schemas/roles";
import { InputSpec } from "../input-spec";
import { isPlainObject } from "../json";
import { hasTemplate } from "../templates";
import {
  durationOrTemplate,
  durationString,
  EventName,
  identifier,
  jsonValue,
  templateString,
} from "../primitives";
import { tryParseDuration, formatDuration } from "../duration";
import { configIssue, crossRule, fieldRule, exactlyOne } from "./rules";

// --- human and timing ------------------------------------------------------------------------

export const APPROVAL_ON_TIMEOUT = ["reject", "approve"] as const;
export const APPROVAL_PRIORITIES = ["low", "normal", "high", "urgent"] as const;
export type ApprovalPriority = (typeof APPROVAL_PRIORITIES)[number];
export const APPROVAL_FORM_MAX_FIELDS = 50;

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;
/** An ISO 8601 date-time such as 2030-01-01T09:00:00Z (delay `until`, approval `due`). */
export function isIsoDateTime(value: string): boolean {
  return ISO_DATE_TIME.test(value) && !Number.isNaN(Date.parse(value));
}

export const ApprovalConfig = z
  .strictObject({
    prompt: templateString("What the approver is asked; templates allowed."),
    items: jsonValue(
      "Exactly what is being approved (shown to approvers and hashed into the audit record); templates allowed.",
    ).optional(),
    approvers: z
      .strictObject({
        roles: z
          .array(z.enum(ROLES))
          .optional()
          .describe("Workspace roles allowed to decide (approver and above by default)."),
        users: z
          .array(z.string().min(1).max(320))
          .optional()
          .describe("Specific users (ids or emails) allowed to decide."),
      })
      .default({})
      .describe("Who may decide; anyone with the approver role or above when empty."),
    quorum: z
      .int()
      .min(1)
      .max(50)
      .default(1)
      .describe("Distinct approvals needed; any rejection rejects."),
    timeout: durationString(
      'How long to wait, e.g. "24h" (default), "30m", "7d"; at most 366d.',
    ).default("24h"),
    onTimeout: z
      .enum(APPROVAL_ON_TIMEOUT)
      .default("reject")
      .describe("Decision applied on timeout (recorded with reason approval_timeout)."),
    allowInitiator: z
      .boolean()
      .default(false)
      .describe("Whether the run's initiator may approve their own run."),
    // form, priority and due have no defaults: definitions without them keep their hash.
    form: z
      .record(identifier("Form field"), InputSpec)
      .refine((form) => Object.keys(form).length <= APPROVAL_FORM_MAX_FIELDS, {
        message: `A form has at most ${APPROVAL_FORM_MAX_FIELDS} fields.`,
      })
      .optional()
      .describe(
        "Fields the approver fills when approving (the same shape as the workflow's inputs); the values become output.data.form. Rejecting needs no form.",
      ),
    priority: z
      .enum(APPROVAL_PRIORITIES)
      .optional()
      .describe("low, normal (when omitted), high or urgent; the inbox sorts by it."),
    due: z
      .string()
      .min(1)
      .max(200)
      .superRefine(
        fieldRule((due) =>
          hasTemplate(due) || isIsoDateTime(due) || tryParseDuration(due).ok
            ? null
            : `"${due}" is neither a duration ("4h", "2d") nor an ISO 8601 date-time ("2030-01-01T09:00:00Z").`,
        ),
      )
      .optional()
      .describe(
        'When a decision is due: a duration from the request ("4h") or an ISO 8601 date-time, or a template. Overdue gates are highlighted; the gate still waits until its timeout.',
      ),
  })
  .superRefine(
    ...crossRule((config, ctx) => {
      const approvers = isPlainObject(config.approvers) ? config.approvers : {};
      const quorum = typeof config.quorum === "number" ? config.quorum : 1;
      if (
        Array.isArray(approvers.users) &&
        approvers.roles === undefined &&
        quorum > new Set(approvers.users).size
      ) {
        configIssue(
          ctx,
          ["quorum"],
          `quorum ${quorum} can never be reached: only ${new Set(approvers.users).size} approver(s) are listed.`,
        );
      }
    }),
  );

export const TASK_ON_TIMEOUT = ["fail", "continue"] as const;
export const TASK_DEFAULT_TIMEOUT = "24h";

/**
 * Work handed to a person or an agent (SPEC §4 `task`): the run waits until an assignee completes
 * it with an output (checked against `outputSchema`, the same field shape as workflow `inputs`)
 * or fails it with a reason. Assignees match by user, by workspace role, or by API token id.
 */
export const TaskConfig = z
  .strictObject({
    instructions: templateString(
      "What the assignee must do; shown as plain text in My queue and to agents. Templates allowed.",
      100_000,
    ),
    assignee: z
      .strictObject({
        users: z
          .array(z.string().min(1).max(320))
          .max(100)
          .optional()
          .describe("Users (ids or emails) who may complete the task."),
        roles: z
          .array(z.enum(ROLES))
          .max(ROLES.length)
          .optional()
          .describe("Workspace roles whose members may complete the task (exact role)."),
        tokens: z
          .array(
            z.string().regex(/^tok_[A-Za-z0-9_-]+$/, {
              message: 'API token ids look like "tok_…" (Settings → API tokens).',
            }),
          )
          .max(100)
          .optional()
          .describe("API token ids (agents) that may complete the task."),
      })
      .superRefine(
        ...crossRule((assignee, ctx) => {
          const given = ["users", "roles", "tokens"].some(
            (k) => Array.isArray(assignee[k]) && (assignee[k] as unknown[]).length > 0,
          );
          if (!given)
            configIssue(
              ctx,
              [],
              "Name at least one assignee: users (ids or emails), roles, or API token ids (tokens).",
            );
        }),
      )
      .describe("Who may complete or fail the task: users, roles and/or API tokens."),
    outputSchema: z
      .record(identifier("Output field"), InputSpec)
      .optional()
      .describe(
        "Fields the assignee reports (same shape as workflow inputs); the output is checked against them and becomes output.data.",
      ),
    due: durationString(
      'When the task is due after it opens, e.g. "4h"; shown in My queue (overdue is highlighted). Does not end the wait.',
    ).optional(),
    timeout: durationString(
      'How long to wait before onTimeout applies, e.g. "24h" (default), "7d"; at most 366d.',
    ).default(TASK_DEFAULT_TIMEOUT),
    onTimeout: z
      .enum(TASK_ON_TIMEOUT)
      .default("fail")
      .describe(
        "On timeout: fail the step (default; an error edge can handle it), or continue with output.data null.",
      ),
  })
  .superRefine(
    ...crossRule((config, ctx) => {
      const due = tryParseDuration(config.due);
      const timeout = tryParseDuration(config.timeout ?? TASK_DEFAULT_TIMEOUT);
      if (due.ok && timeout.ok && due.ms > timeout.ms)
        configIssue(
          ctx,
          ["due"],
          `due (${formatDuration(due.ms)}) is after timeout (${formatDuration(timeout.ms)}): the task would expire before it is due.`,
        );
    }),
  );

export const DelayConfig = z
  .strictObject({
    duration: durationOrTemplate(
      'How long to wait, e.g. "10m", "1h30m", "2d" (or a template).',
    ).optional(),
    until: z
      .string()
      .min(1)
      .max(200)
      .superRefine(
        fieldRule((until) =>
          hasTemplate(until) || isIsoDateTime(until)
            ? null
            : `"${until}" is not an ISO 8601 date-time; write e.g. "2030-01-01T09:00:00Z".`,
        ),
      )
      .optional()
      .describe("ISO 8601 date-time to wait until (e.g. 2030-01-01T09:00:00Z), or a template."),
  })
  .superRefine(
    ...crossRule((config, ctx) => exactlyOne(config, ctx, "duration", "until", "A delay")),
  );

export const WaitForEventConfig = z.strictObject({
  event: EventName,
  match: z
    .record(
      z
        .string()
        .min(1)
        .max(256)
        .regex(/^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/, {
          message: 'Match keys are dotted paths into the event, e.g. "data.orderId".',
        }),
      jsonValue("Expected value; templates allowed."),
    )
    .default({})
    .describe(
      'Event field path → expected value, e.g. { "data.orderId": "{{ input.orderId }}" }. All must be equal.',
    ),
  timeout: durationString(
    'How long to wait (required), e.g. "1h"; the step returns null on timeout.',
  ),
});

export const EmitEventConfig = z.strictObject({
  event: EventName,
  data: jsonValue("Event payload; templates allowed.").default({}),
});
