/**
 * Zod schemas of steps, edges and every step type's config (SPEC §4). Client-safe; catalog.ts adds
 * the editor metadata. Configs are strict objects: a typo such as "metod" is an error, not a
 * silently ignored key. Cross-field rules (exactly one of A or B, quorum vs approvers, …) are
 * refinements so the config schema alone validates an inspector form.
 */
import { z } from "zod";
import { ROLES } from "../schemas/roles";
import { Condition } from "./conditions";
import { InputSpec } from "./input-spec";
import { isPlainObject } from "./json";
import {
  durationOrTemplate,
  durationString,
  EventName,
  identifier,
  jsonValue,
  literalHttpUrlProblem,
  SecretName,
  StepId,
  templateString,
} from "./primitives";
import { hasTemplate } from "./templates";
import { tryParseDuration, formatDuration } from "./duration";

export const STEP_TYPES = [
  "transform",
  "condition",
  "http",
  "script",
  "code",
  "llm",
  "agent",
  "approval",
  "delay",
  "wait_for_event",
  "emit_event",
  "loop",
  "subworkflow",
  "notify",
  "propose_change",
  "return",
  "task",
  "tool",
] as const;
export const StepType = z.enum(STEP_TYPES);
export type StepType = z.infer<typeof StepType>;

export function isStepType(value: unknown): value is StepType {
  return typeof value === "string" && (STEP_TYPES as readonly string[]).includes(value);
}

type Ctx = z.RefinementCtx;
type Loose = Record<string, unknown>;
const configIssue = (ctx: Ctx, path: Array<string | number>, message: string) =>
  ctx.addIssue({ code: "custom", path, message });

/**
 * Cross-field rules run even when a sibling field failed (zod skips refinements after an error
 * by default), so one parse reports everything. They read fields defensively for that reason.
 */
function crossRule(rule: (config: Loose, ctx: Ctx) => void) {
  return [
    (value: unknown, ctx: Ctx) => rule(value as Loose, ctx),
    { when: (payload: { value: unknown }) => isPlainObject(payload.value) },
  ] as const;
}

function fieldRule(problem: (value: string) => string | null) {
  return (value: string, ctx: Ctx) => {
    const message = problem(value);
    if (message) ctx.addIssue({ code: "custom", message });
  };
}

function exactlyOne(config: Loose, ctx: Ctx, a: string, b: string, what: string): void {
  const hasA = config[a] !== undefined;
  if (hasA === (config[b] !== undefined))
    configIssue(
      ctx,
      hasA ? [b] : [],
      `${what} needs exactly one of "${a}" or "${b}"${hasA ? ", not both" : ""}.`,
    );
}

// --- transform / condition / return ----------------------------------------------------------

export const TransformConfig = z.strictObject({
  value: jsonValue(
    "The value to build: any JSON; strings may be templates. A lone {{ path }} keeps its type.",
  ),
});

export const ConditionConfig = z.strictObject({
  condition: Condition,
});

export const ReturnConfig = z.strictObject({
  value: jsonValue(
    "The run's output. A lone {{ path }} keeps its type. Inside a loop body it is the iteration's value.",
  ).default(null),
});

// --- http ------------------------------------------------------------------------------------

export const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] as const;
export const HTTP_DEFAULT_TIMEOUT_MS = 30_000;
export const HTTP_MAX_TIMEOUT_MS = 300_000;
export const HTTP_DEFAULT_MAX_RESPONSE_BYTES = 1_048_576;
export const HTTP_MAX_RESPONSE_BYTES = 10_485_760;

const HeaderName = z
  .string()
  .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, { message: "Not a valid HTTP header name." })
  .refine((k) => k !== "__proto__", { message: "Not a valid header name." });
const DomainPattern = z
  .string()
  .regex(/^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, {
    message:
      'Domains are lower-case host names, optionally starting with "*." to include subdomains (e.g. "api.example.com", "*.example.com").',
  });

export const HttpConfig = z
  .strictObject({
    method: z.enum(HTTP_METHODS).default("GET").describe("HTTP method."),
    url: templateString("Absolute http(s) URL.", 8192).superRefine(
      fieldRule(literalHttpUrlProblem),
    ),
    headers: z
      .record(HeaderName, z.string().max(16_384))
      .default({})
      .describe("Request headers; values may use templates and {{ secrets.NAME }}."),
    query: z
      .record(z.string().min(1), z.union([z.string(), z.number(), z.boolean()]))
      .default({})
      .describe("Query parameters appended to the URL."),
    body: jsonValue(
      "Request body: JSON (sent as application/json) or a string. Not allowed with GET or HEAD.",
    ).optional(),
    timeoutMs: z
      .int()
      .min(1)
      .max(HTTP_MAX_TIMEOUT_MS)
      .default(HTTP_DEFAULT_TIMEOUT_MS)
      .describe("Request timeout in ms (default 30000, max 300000)."),
    allowedDomains: z
      .array(DomainPattern)
      .default([])
      .describe(
        'If non-empty, the request (and redirects) may only go to these hosts; "*.example.com" includes subdomains.',
      ),
    maxResponseBytes: z
      .int()
      .min(1)
      .max(HTTP_MAX_RESPONSE_BYTES)
      .default(HTTP_DEFAULT_MAX_RESPONSE_BYTES)
      .describe("Response bodies larger than this fail the step (default 1 MiB, max 10 MiB)."),
  })
  .superRefine(
    ...crossRule((config, ctx) => {
      const method = config.method ?? "GET";
      if ((method === "GET" || method === "HEAD") && config.body !== undefined) {
        configIssue(
          ctx,
          ["body"],
          `A ${String(method)} request cannot have a body; use POST, PUT or PATCH, or move the data to "query".`,
        );
      }
      const { url, allowedDomains } = config;
      if (
        typeof url !== "string" ||
        literalHttpUrlProblem(url) ||
        hasTemplate(url) ||
        !Array.isArray(allowedDomains) ||
        allowedDomains.length === 0
      )
        return;
      const host = new URL(url).hostname;
      if (
        !allowedDomains.some((pattern) => typeof pattern === "string" && hostMatches(host, pattern))
      ) {
        configIssue(
          ctx,
          ["url"],
          `Host "${host}" is not in allowedDomains (${allowedDomains.join(", ")}).`,
        );
      }
    }),
  );

/** Whether a host matches an allowedDomains entry ("*.example.com" matches subdomains only). */
export function hostMatches(host: string, pattern: string): boolean {
  const h = host.toLowerCase();
  if (pattern.startsWith("*."))
    return h.endsWith(pattern.slice(1)) && h.length > pattern.length - 1;
  return h === pattern;
}

// --- script / code ---------------------------------------------------------------------------

export const SCRIPT_DEFAULT_TIMEOUT_MS = 120_000;
export const SCRIPT_MAX_TIMEOUT_MS = 600_000;
const EnvName = identifier("Environment variable");

export const ScriptConfig = z
  .strictObject({
    command: templateString(
      "Shell command run with `bash -lc` in a per-run scratch directory. Prefer passing values through env over interpolating them into the command.",
      100_000,
    ),
    cwd: z
      .string()
      .max(1024)
      .superRefine(
        fieldRule((cwd) =>
          cwd.startsWith("/") || cwd.split(/[\\/]/).includes("..")
            ? `cwd "${cwd}" must stay inside the scratch directory: use a relative path without "..".`
            : null,
        ),
      )
      .optional()
      .describe(
        "Working directory relative to the run's scratch directory (or to the checkout, when the workflow declares a repository).",
      ),
    env: z
      .record(EnvName, z.string().max(65_536))
      .default({})
      .describe(
        "Environment variables (the environment is otherwise scrubbed); values may use templates.",
      ),
    secrets: z
      .record(EnvName, SecretName)
      .default({})
      .describe(
        "Environment variable → workspace secret name; the value is injected at run time and never stored.",
      ),
    timeoutMs: z
      .int()
      .min(1_000)
      .max(SCRIPT_MAX_TIMEOUT_MS)
      .default(SCRIPT_DEFAULT_TIMEOUT_MS)
      .describe("Timeout in ms (default 120000, max 600000); SIGTERM, then SIGKILL after 10 s."),
    allowNonZeroExit: z
      .boolean()
      .optional()
      .describe(
        "Complete the step when the command exits non-zero (branch on output.data.exitCode). Off by default: a non-zero exit fails the step with the exit code and the stderr tail.",
      ),
    failOnNonZero: z
      .boolean()
      .optional()
      .describe(
        "Deprecated: a non-zero exit fails the step by default now. `false` is read as allowNonZeroExit: true.",
      ),
    writable: z
      .boolean()
      .optional()
      .describe(
        "Let the script write to the repository checkout (read-only by default); the checkout is this step's own and removed afterwards.",
      ),
  })
  .superRefine(
    ...crossRule((config, ctx) => {
      if (!isPlainObject(config.secrets) || !isPlainObject(config.env)) return;
      for (const name of Object.keys(config.secrets)) {
        if (Object.prototype.hasOwnProperty.call(config.env, name))
          configIssue(
            ctx,
            ["secrets", name],
            `"${name}" is set in both env and secrets; keep one.`,
          );
      }
    }),
  );

const ModuleSource = (what: string) =>
  z
    .string()
    .min(1)
    .max(1_000_000)
    .superRefine(
      fieldRule((source) =>
        /export\s+default\b/.test(source)
          ? null
          : `The ${what} must export a default function: \`export default function (input, ctx) { … }\`.`,
      ),
    );

export const CODE_DEFAULT_TIMEOUT_MS = 10_000;
export const CODE_MAX_TIMEOUT_MS = 60_000;

export const CodeConfig = z.strictObject({
  source: ModuleSource("source").describe(
    "JavaScript module run in a QuickJS sandbox: `export default function (input, ctx) { … }`. Not templated — pass data through `input`.",
  ),
  input: jsonValue("The value passed as `input` to the function; templates allowed.").optional(),
  timeoutMs: z
    .int()
    .min(100)
    .max(CODE_MAX_TIMEOUT_MS)
    .default(CODE_DEFAULT_TIMEOUT_MS)
    .describe("Time limit in ms (default 10000, max 60000)."),
  memoryMb: z
    .int()
    .min(8)
    .max(512)
    .default(64)
    .describe("Memory limit in MiB (default 64, max 512)."),
});

// --- llm / agent -----------------------------------------------------------------------------

export const LlmConfig = z.strictObject({
  model: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe("Model name; defaults to the workspace's configured model."),
  system: z.string().max(100_000).optional().describe("System prompt; templates allowed."),
  prompt: templateString("User prompt."),
  temperature: z
    .number()
    .min(0)
    .max(2)
    .default(0)
    .describe("Sampling temperature, 0–2 (default 0 for repeatable runs)."),
  json: z
    .union([z.boolean(), z.record(z.string(), jsonValue("JSON Schema keyword"))])
    .default(false)
    .describe(
      "true to require a JSON object answer, or a JSON Schema the answer must match; output.data is then the parsed value.",
    ),
  maxTokens: z.int().min(1).max(200_000).optional().describe("Maximum tokens in the answer."),
});

export const AgentTool = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("workflow"),
    workflow: z.string().min(1).max(200).describe("Workflow id or slug exposed as a tool."),
    description: z
      .string()
      .max(2_000)
      .optional()
      .describe("What the tool does, shown to the model."),
  }),
  z.strictObject({
    type: z.literal("mcp"),
    url: templateString("MCP server URL (streamable HTTP).", 8192),
    headers: z
      .record(HeaderName, z.string())
      .default({})
      .describe("Headers for the MCP server; may use {{ secrets.NAME }}."),
    tools: z
      .array(z.string().min(1))
      .optional()
      .describe("Allow-list of tool names from this server; all when omitted."),
  }),
]);

export const AgentConfig = z.strictObject({
  model: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe("Model name; defaults to the workspace's configured model."),
  system: z
    .string()
    .max(100_000)
    .optional()
    .describe("Extra system instructions; templates allowed."),
  goal: templateString("What the agent must achieve."),
  tools: z
    .array(AgentTool)
    .max(50)
    .default([])
    .describe("Tools: Sluice workflows and/or MCP servers."),
  maxIterations: z
    .int()
    .min(1)
    .max(50)
    .default(8)
    .describe("Upper bound on model ↔ tool rounds (default 8, max 50)."),
});

// --- tool -----------------------------------------------------------------------------------

export const TOOL_DEFAULT_TIMEOUT_MS = 30_000;
export const TOOL_MAX_TIMEOUT_MS = 600_000;
/** The workspace's MCP server names (lib/schemas/workspace.ts McpServerName uses the same). */
export const MCP_SERVER_NAME = /^[a-z][a-z0-9_-]{0,63}$/;

export const ToolConfig = z.strictObject({
  server: z
    .string()
    .regex(MCP_SERVER_NAME, {
      message:
        "Name an MCP server configured under Settings → Integrations (lower-case letters, digits, - and _).",
    })
    .describe("Name of an MCP server configured under Settings → Integrations."),
  tool: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[^{}]+$/, { message: "The tool name is literal (no templates)." })
    .describe("Name of the tool on that server."),
  arguments: z
    .record(z.string().min(1).max(200), jsonValue("Argument value; templates allowed."))
    .default({})
    .describe("The tool's arguments; values may be templates (a lone {{ path }} keeps its type)."),
  transform: ModuleSource("transform")
    .optional()
    .describe(
      "Optional JavaScript run in the code step's QuickJS sandbox over the result: `export default function (data, ctx) { … }` (ctx.text holds the text content). Its return value becomes output.data.",
    ),
  timeoutMs: z
    .int()
    .min(100)
    .max(TOOL_MAX_TIMEOUT_MS)
    .default(TOOL_DEFAULT_TIMEOUT_MS)
    .describe(
      "Time limit for the whole call in ms (default 30000, max 600000; the run's deadline still applies).",
    ),
});

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

// --- loop / subworkflow ----------------------------------------------------------------------

export const LOOP_MAX_CONCURRENCY = 20;
/** Most iterations a loop runs (items, or batches with `batchSize`). */
export const LOOP_MAX_ITEMS = 1000;
export const LOOP_MAX_BATCH_SIZE = 1000;
/** maxItems with a batchSize: the items may outnumber the iterations, up to this. */
export const LOOP_MAX_BATCHED_ITEMS = 100_000;

const WorkflowRef = z
  .string()
  .min(1)
  .max(200)
  .regex(/^([A-Za-z0-9][A-Za-z0-9_-]*|\{\{.*\}\})$/, {
    message: "Write a workflow id (wf_…) or slug (letters, digits, - and _), or a template.",
  })
  .describe("Workflow id (wf_…) or slug.");
const VersionRef = z
  .string()
  .regex(/^(\d+\.\d+\.\d+|latest|\{\{.*\}\})$/, {
    message: 'Versions are semver like "1.4.0", or "latest".',
  })
  .describe('Published version to run ("1.4.0"); the latest published version when omitted.');

export const SubworkflowConfig = z.strictObject({
  workflow: WorkflowRef,
  version: VersionRef.optional(),
  input: jsonValue("Input for the child run; templates allowed.").default({}),
});

export const NOTIFY_CHANNELS = ["slack", "webhook", "email"] as const;

export const NotifyConfig = z
  .strictObject({
    channel: z
      .enum(NOTIFY_CHANNELS)
      .describe("slack: incoming webhook URL; webhook: any URL (JSON POST); email: an address."),
    target: templateString(
      "Where to send: the webhook URL or the email address. May use {{ secrets.NAME }} (Slack webhook URLs are secrets).",
      2048,
    ),
    message: templateString("Message text; templates allowed."),
    subject: z.string().max(998).optional().describe("Email subject (email only)."),
  })
  .superRefine(
    ...crossRule((config, ctx) => {
      const { channel, target } = config;
      if (config.subject !== undefined && channel !== "email")
        configIssue(
          ctx,
          ["subject"],
          `"subject" is only used by the email channel, not ${String(channel)}.`,
        );
      if (
        typeof target !== "string" ||
        target === "" ||
        hasTemplate(target) ||
        !(NOTIFY_CHANNELS as readonly unknown[]).includes(channel)
      )
        return;
      if (channel === "email" && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(target))
        configIssue(ctx, ["target"], `"${target}" is not an email address.`);
      const problem = channel !== "email" ? literalHttpUrlProblem(target) : null;
      if (problem) configIssue(ctx, ["target"], problem);
    }),
  );

export const PATCH_OPS = ["add", "remove", "replace", "move", "copy", "test"] as const;
export const PatchOperation = z
  .strictObject({
    op: z.enum(PATCH_OPS),
    path: z
      .string()
      .regex(/^(\/([^~/]|~[01])*)*$/, { message: 'A JSON Pointer such as "/steps/0/config/url".' }),
    from: z
      .string()
      .regex(/^(\/([^~/]|~[01])*)*$/, { message: "A JSON Pointer." })
      .optional(),
    value: jsonValue("Value for add, replace and test.").optional(),
  })
  .superRefine(
    ...crossRule((op, ctx) => {
      const needsValue = op.op === "add" || op.op === "replace" || op.op === "test";
      const needsFrom = op.op === "move" || op.op === "copy";
      if (needsValue && op.value === undefined)
        configIssue(ctx, ["value"], `A "${String(op.op)}" operation needs "value".`);
      if (needsFrom && op.from === undefined)
        configIssue(ctx, ["from"], `A "${String(op.op)}" operation needs "from".`);
    }),
  );

const RawTemplate = z.string().regex(/^\{\{[^{}]*\}\}$/, {
  message: 'Write a single template such as "{{ steps.plan.output.data }}", or a literal value.',
});

export const ProposeChangeConfig = z
  .strictObject({
    definition: z
      .union([RawTemplate, z.record(z.string(), jsonValue("Definition member"))])
      .optional()
      .describe(
        "The full proposed definition, or one template yielding it (e.g. from an llm step). Templates inside a literal definition are kept as written.",
      ),
    patch: z
      .union([RawTemplate, z.array(PatchOperation).min(1).max(1000)])
      .optional()
      .describe("An RFC 6902 patch against the current definition, or one template yielding it."),
    summary: templateString("One-line summary shown to reviewers.", 500),
    rationale: z
      .string()
      .max(20_000)
      .optional()
      .describe("Why the change is proposed; templates allowed."),
  })
  .superRefine(
    ...crossRule((config, ctx) => exactlyOne(config, ctx, "definition", "patch", "A proposal")),
  );

// --- steps, edges, loop bodies (recursive) ---------------------------------------------------

export const EDGE_FAILURE_POLICIES = ["skip", "continue", "fail_run"] as const;
export const EdgeFailurePolicy = z.enum(EDGE_FAILURE_POLICIES);
export type EdgeFailurePolicy = z.infer<typeof EdgeFailurePolicy>;

export const PortName = z.string().regex(/^[a-z][a-z_]*$/, {
  message: "Ports are lower-case names such as success, error, true, approved.",
});

export const Edge = z.strictObject({
  from: StepId.describe("Source step id."),
  to: StepId.describe("Target step id."),
  port: PortName.optional().describe(
    "Output port of the source: success (default for most types), true/false (condition), approved/rejected (approval), done (loop), or error (runs only if the source failed, handling the failure). Defaults to the source type's primary port.",
  ),
  onFailure: EdgeFailurePolicy.default("skip").describe(
    "If the source fails: skip the target (default), continue (target runs and sees the source output as null; failure handled), or fail_run (the run fails at once).",
  ),
});
export type Edge = z.infer<typeof Edge>;
export type EdgeInput = z.input<typeof Edge>;

export const RETRY_MAX_ATTEMPTS = 10;
const BackoffMs = z.int().min(0).max(3_600_000);

export const Retry = z
  .strictObject({
    maxAttempts: z
      .int()
      .min(1)
      .max(RETRY_MAX_ATTEMPTS)
      .default(1)
      .describe(
        "Total attempts including the first (1 = no retry, max 10). Only retryable failures (network, 429, 5xx, timeouts) retry.",
      ),
    backoffMs: z
      .union([
        BackoffMs,
        z
          .array(BackoffMs)
          .min(1)
          .max(RETRY_MAX_ATTEMPTS - 1),
      ])
      .default(1000)
      .describe(
        "Delay before each retry: a fixed number of ms, or a list per retry (the last entry repeats); at least 1 s is waited between attempts.",
      ),
  })
  .describe("Retry policy.");
export type Retry = z.infer<typeof Retry>;

/** Delay before attempt `attempt` (2 = first retry). Arrays index per retry; the last repeats. */
export function backoffDelayMs(retry: Retry, attempt: number): number {
  if (attempt <= 1) return 0;
  if (typeof retry.backoffMs === "number") return retry.backoffMs;
  return retry.backoffMs[Math.min(attempt - 2, retry.backoffMs.length - 1)] ?? 0;
}

const stepBase = {
  id: StepId,
  name: z.string().min(1).max(200).optional().describe("Display name."),
  when: Condition.optional().describe(
    "Run only if this condition holds (else the step is skipped); the steps it references are waited for.",
  ),
  retry: Retry.prefault({}),
  timeoutMs: z
    .int()
    .min(1)
    .max(86_400_000)
    .optional()
    .describe("Deadline for each attempt in ms (non-waiting steps)."),
};

export const LoopConfig = z
  .strictObject({
    items: z
      .union([
        z
          .string()
          .superRefine(
            fieldRule((items) =>
              /^\s*\{\{[^{}]*\}\}\s*$/.test(items)
                ? null
                : 'items must be one template yielding an array (e.g. "{{ steps.list.output.data.items }}") or a literal array.',
            ),
          ),
        z.array(jsonValue("Item")),
      ])
      .describe(
        'The items: a template yielding an array (e.g. "{{ steps.list.output.data }}") or a literal array.',
      ),
    get body() {
      return LoopBody.optional().describe(
        "Steps run once per item (with loop.item, loop.index, loop.items, and loop.state or loop.batch when set). Exactly one of body or workflow.",
      );
    },
    workflow: WorkflowRef.optional().describe("Run this workflow once per item instead of a body."),
    version: VersionRef.optional(),
    input: jsonValue(
      'Child input per item (workflow loops); default { "item": …, "index": … }, or { "batch": […], "index": … } with a batchSize.',
    ).optional(),
    concurrency: z
      .int()
      .min(1)
      .max(LOOP_MAX_CONCURRENCY)
      .default(1)
      .describe("Iterations run at the same time (default 1, max 20)."),
    maxItems: z
      .int()
      .min(1)
      .max(LOOP_MAX_BATCHED_ITEMS)
      .default(100)
      .describe(
        "More items than this fails the step (default 100; max 1000, or 1000 × batchSize up to 100,000 with a batchSize).",
      ),
    batchSize: z
      .int()
      .min(1)
      .max(LOOP_MAX_BATCH_SIZE)
      .optional()
      .describe(
        "Hand the body up to this many items at a time as loop.batch (loop.index is then the batch number); default: one item per iteration.",
      ),
    state: jsonValue(
      "Initial loop.state (templates allowed, resolved once when the loop starts); each iteration's stateFrom step output becomes the next state. Forces one iteration at a time.",
    ).optional(),
    stateFrom: StepId.optional().describe(
      "The body step whose output data becomes loop.state for the next iteration (and the loop's final meta.state).",
    ),
  })
  .superRefine(
    ...crossRule((config, ctx) => {
      exactlyOne(config, ctx, "body", "workflow", "A loop");
      loopStateRules(config, ctx);
      if (
        config.body !== undefined &&
        (config.version !== undefined || config.input !== undefined)
      ) {
        configIssue(
          ctx,
          [config.version !== undefined ? "version" : "input"],
          '"version" and "input" only apply to workflow loops.',
        );
      }
    }),
  );

/** The cross-field rules of a loop's accumulator and batches (docs/workflow-language.md §Loops). */
function loopStateRules(config: Loose, ctx: Ctx): void {
  const hasState = config.state !== undefined;
  if (hasState !== (config.stateFrom !== undefined))
    configIssue(
      ctx,
      [hasState ? "stateFrom" : "state"],
      hasState
        ? 'A loop with a "state" needs "stateFrom": the body step whose output becomes the next state.'
        : '"stateFrom" needs an initial "state" (e.g. { "total": 0 }).',
    );
  if (hasState && config.workflow !== undefined)
    configIssue(ctx, ["state"], '"state" and "stateFrom" only apply to loops with a body.');
  if (hasState && typeof config.concurrency === "number" && config.concurrency > 1)
    configIssue(
      ctx,
      ["concurrency"],
      `A loop with a "state" runs one iteration at a time (each one reads the state the previous one set); remove "concurrency" (got ${config.concurrency}).`,
    );
  const body = config.body;
  if (typeof config.stateFrom === "string" && isPlainObject(body) && Array.isArray(body.steps)) {
    const ids = body.steps.flatMap((s) =>
      isPlainObject(s) && typeof s.id === "string" ? [s.id] : [],
    );
    if (!ids.includes(config.stateFrom))
      configIssue(
        ctx,
        ["stateFrom"],
        `"stateFrom" names ${JSON.stringify(config.stateFrom)}, which is not a step of this loop's body (${ids.map((i) => JSON.stringify(i)).join(", ") || "none"}).`,
      );
  }
  const batch = typeof config.batchSize === "number" ? config.batchSize : 1;
  if (typeof config.maxItems === "number" && config.maxItems > LOOP_MAX_ITEMS * batch)
    configIssue(
      ctx,
      ["maxItems"],
      config.batchSize === undefined
        ? `maxItems is at most ${LOOP_MAX_ITEMS} (one iteration per item); set a batchSize to loop over more (got ${config.maxItems}).`
        : `maxItems ${config.maxItems} with batchSize ${batch} would run more than ${LOOP_MAX_ITEMS} iterations; raise batchSize to at least ${Math.ceil(config.maxItems / LOOP_MAX_ITEMS)} or lower maxItems.`,
    );
}

function stepOf<T extends StepType, C extends z.ZodType>(type: T, config: C) {
  return z.strictObject({
    ...stepBase,
    type: z.literal(type),
    config: config.prefault({} as z.input<C>),
  });
}

export const TransformStep = stepOf("transform", TransformConfig);
export const ConditionStep = stepOf("condition", ConditionConfig);
export const HttpStep = stepOf("http", HttpConfig);
export const ScriptStep = stepOf("script", ScriptConfig);
export const CodeStep = stepOf("code", CodeConfig);
export const LlmStep = stepOf("llm", LlmConfig);
export const AgentStep = stepOf("agent", AgentConfig);
export const ApprovalStep = stepOf("approval", ApprovalConfig);
export const DelayStep = stepOf("delay", DelayConfig);
export const WaitForEventStep = stepOf("wait_for_event", WaitForEventConfig);
export const EmitEventStep = stepOf("emit_event", EmitEventConfig);
export const LoopStep = stepOf("loop", LoopConfig);
export const SubworkflowStep = stepOf("subworkflow", SubworkflowConfig);
export const NotifyStep = stepOf("notify", NotifyConfig);
export const ProposeChangeStep = stepOf("propose_change", ProposeChangeConfig);
export const ReturnStep = stepOf("return", ReturnConfig);
export const TaskStep = stepOf("task", TaskConfig);
export const ToolStep = stepOf("tool", ToolConfig);

export const Step = z.discriminatedUnion("type", [
  TransformStep,
  ConditionStep,
  HttpStep,
  ScriptStep,
  CodeStep,
  LlmStep,
  AgentStep,
  ApprovalStep,
  DelayStep,
  WaitForEventStep,
  EmitEventStep,
  LoopStep,
  SubworkflowStep,
  NotifyStep,
  ProposeChangeStep,
  ReturnStep,
  TaskStep,
  ToolStep,
]);

export const LoopBody = z.strictObject({
  get steps() {
    return z.array(Step).min(1, { message: "A loop body needs at least one step." });
  },
  edges: z.array(Edge).optional().describe("Edges between body steps; omitted = array order."),
});

export type Step = z.infer<typeof Step>;
export type StepInput = z.input<typeof Step>;
export type LoopBody = z.infer<typeof LoopBody>;
export type StepOfType<T extends StepType> = Extract<Step, { type: T }>;
export type StepConfig<T extends StepType = StepType> = StepOfType<T>["config"];

/** True for a plain object whose `type` is a loop and that carries a body. */
export function hasLoopBody(
  step: unknown,
): step is { config: { body: { steps: unknown[]; edges?: unknown[] } } } {
  if (!isPlainObject(step) || step.type !== "loop" || !isPlainObject(step.config)) return false;
  const body = step.config.body;
  return isPlainObject(body) && Array.isArray(body.steps);
}
