// size: one table, a record per step type (labels, ports, config schema, engine traits).
/**
 * Client-safe catalog of step types (SPEC §4): what the editor palette, the inspector, the
 * validator and the rerun dialog need to know about each type. Server handlers live elsewhere and
 * a parity test asserts one handler per entry.
 */
import type { z } from "zod";
import {
  AgentConfig,
  ApprovalConfig,
  CodeConfig,
  ConditionConfig,
  DelayConfig,
  EmitEventConfig,
  HttpConfig,
  LlmConfig,
  LoopConfig,
  NotifyConfig,
  ProposeChangeConfig,
  ReturnConfig,
  ScriptConfig,
  CODE_DEFAULT_TIMEOUT_MS,
  HTTP_DEFAULT_TIMEOUT_MS,
  SCRIPT_DEFAULT_TIMEOUT_MS,
  TOOL_DEFAULT_TIMEOUT_MS,
  isStepType,
  STEP_TYPES,
  SubworkflowConfig,
  TaskConfig,
  ToolConfig,
  TransformConfig,
  WaitForEventConfig,
  StepType,
} from "./steps";

export { STEP_TYPES, StepType, isStepType };

/** Every step also has this port; an edge from it runs only when the step failed. */
export const ERROR_PORT = "error";

export const STEP_CATEGORIES = [
  "logic",
  "data",
  "integration",
  "ai",
  "human",
  "timing",
  "flow",
] as const;
export type StepCategory = (typeof STEP_CATEGORIES)[number];

/**
 * How the engine treats a top-level config field when resolving templates:
 * - `literal`: never resolved (code source, loop bodies — resolved per iteration in their scope);
 * - `rawOnly`: resolved only when the whole field is one `{{ path }}`, so a literal proposed
 *   definition keeps its own templates intact.
 * Fields not listed are resolved deeply.
 */
export type TemplateMode = "literal" | "rawOnly";

export interface StepTypeInfo<T extends StepType = StepType> {
  readonly type: T;
  readonly label: string;
  readonly description: string;
  readonly category: StepCategory;
  /** Icon name (lucide-style), e.g. "globe". */
  readonly icon: string;
  /** Output ports besides the implicit `error` port. */
  readonly ports: readonly string[];
  /** Port an edge uses when it names none (also the implicit chain port when edges are omitted). */
  readonly defaultPort: string | null;
  /** Repeating the step affects the outside world; the rerun dialog lists these. */
  readonly sideEffect: boolean;
  /** The step can wait for a long time (the run becomes `waiting`). */
  readonly waits: boolean;
  /** What `output.data` holds. */
  readonly output: string;
  readonly config: z.ZodType;
  /** Top-level config fields that may reference `{{ secrets.NAME }}`; elsewhere a secret could leak into stored outputs. */
  readonly secretFields: readonly string[];
  readonly templateModes: Readonly<Record<string, TemplateMode>>;
  /** How the engine runs the type; every engine list of types is derived from these (step-traits.ts). */
  readonly traits: StepTraits;
}

/**
 * - `pure`: output depends only on the run context (no I/O); evaluated in waves and by the dry run.
 * - `instant`: no I/O of its own (its writes share the attempt's transaction), no deadline.
 * - `action`: one durable step per attempt doing I/O under a deadline.
 * - `process`: an action run as an OS process, killed when its run ends.
 * - `orchestrated`: driven by the run driver with durable waits, sleeps and invokes.
 */
export type StepExecution = "pure" | "instant" | "action" | "process" | "orchestrated";

export interface StepTraits {
  readonly execution: StepExecution;
  /** A recording session (docs/mcp.md) may call it. */
  readonly recordable?: true;
  /** Only a saved workflow may use it: an inline run is refused (NEEDS_SAVED_WORKFLOW). */
  readonly savedWorkflowOnly?: true;
  /** The attempt's deadline (ms) when the step sets no timeoutMs; absent: none. */
  readonly defaultTimeoutMs?: number;
}

// `const Tr` keeps each entry's traits literal, so types such as OrchestratedStepType derive from them.
const entry = <T extends StepType, const Tr extends StepTraits>(
  info: StepTypeInfo<T> & { readonly traits: Tr },
): StepTypeInfo<T> & { readonly traits: Tr } => Object.freeze(info);

export const STEP_CATALOG = {
  transform: entry({
    type: "transform",
    label: "Transform",
    description: "Builds a value from templates. No side effects.",
    category: "data",
    icon: "shuffle",
    ports: ["success"],
    defaultPort: "success",
    sideEffect: false,
    waits: false,
    output: "The resolved value.",
    config: TransformConfig,
    secretFields: [],
    templateModes: {},
    traits: { execution: "pure" },
  }),
  condition: entry({
    type: "condition",
    label: "Condition",
    description: "Routes to the true or false port.",
    category: "logic",
    icon: "git-branch",
    ports: ["true", "false"],
    defaultPort: "true",
    sideEffect: false,
    waits: false,
    output: "The boolean result.",
    config: ConditionConfig,
    secretFields: [],
    templateModes: {},
    traits: { execution: "pure" },
  }),
  http: entry({
    type: "http",
    label: "HTTP request",
    description:
      "Sends an HTTP request. Private, loopback, link-local and metadata addresses are refused unless the workspace allows them.",
    category: "integration",
    icon: "globe",
    ports: ["success"],
    defaultPort: "success",
    sideEffect: true,
    waits: false,
    output: "{ status, headers, body } — body parsed as JSON when the response is JSON.",
    config: HttpConfig,
    secretFields: ["url", "headers", "query", "body"],
    templateModes: {},
    traits: { execution: "action", recordable: true, defaultTimeoutMs: HTTP_DEFAULT_TIMEOUT_MS },
  }),
  script: entry({
    type: "script",
    label: "Script",
    description:
      "Runs a shell command with bash -lc in a per-run scratch directory. Disabled unless the workspace enables scripts.",
    category: "integration",
    icon: "terminal",
    ports: ["success"],
    defaultPort: "success",
    sideEffect: true,
    waits: false,
    output: "{ exitCode, stdout, stderr } — each stream capped at 64 KiB.",
    config: ScriptConfig,
    secretFields: ["env"],
    templateModes: {},
    traits: { execution: "process", defaultTimeoutMs: SCRIPT_DEFAULT_TIMEOUT_MS },
  }),
  code: entry({
    type: "code",
    label: "Code",
    description:
      "Runs a JavaScript function in a QuickJS sandbox with time and memory limits and no host access.",
    category: "data",
    icon: "code",
    ports: ["success"],
    defaultPort: "success",
    sideEffect: false,
    waits: false,
    output: "The function's return value.",
    config: CodeConfig,
    secretFields: [],
    templateModes: { source: "literal" },
    traits: { execution: "action", recordable: true, defaultTimeoutMs: CODE_DEFAULT_TIMEOUT_MS },
  }),
  llm: entry({
    type: "llm",
    label: "LLM",
    description: "One chat completion against the workspace's OpenAI-compatible endpoint.",
    category: "ai",
    icon: "sparkles",
    ports: ["success"],
    defaultPort: "success",
    sideEffect: true,
    waits: false,
    output: "The answer text, or the parsed JSON when json is set; token usage in meta.",
    config: LlmConfig,
    secretFields: [],
    templateModes: {},
    traits: { execution: "action", recordable: true, defaultTimeoutMs: 300_000 },
  }),
  agent: entry({
    type: "agent",
    label: "Agent",
    description: "An LLM with tools (MCP servers, Sluice workflows) in a bounded loop.",
    category: "ai",
    icon: "bot",
    ports: ["success"],
    defaultPort: "success",
    sideEffect: true,
    waits: false,
    output: "The agent's final answer; tool calls and token usage in meta.",
    config: AgentConfig,
    secretFields: ["tools"],
    templateModes: {},
    traits: { execution: "action", defaultTimeoutMs: 600_000 },
  }),
  approval: entry({
    type: "approval",
    label: "Approval",
    description:
      "Pauses the run until people approve or reject. Rejected with no rejected edge ends the run cancelled.",
    category: "human",
    icon: "user-check",
    ports: ["approved", "rejected"],
    defaultPort: "approved",
    sideEffect: false,
    waits: true,
    output: "{ decision, decidedBy, reason, decidedAt }.",
    config: ApprovalConfig,
    secretFields: [],
    templateModes: {},
    traits: { execution: "orchestrated" },
  }),
  delay: entry({
    type: "delay",
    label: "Delay",
    description: "Waits for a duration or until a date.",
    category: "timing",
    icon: "clock",
    ports: ["success"],
    defaultPort: "success",
    sideEffect: false,
    waits: true,
    output: "{ resumedAt }.",
    config: DelayConfig,
    secretFields: [],
    templateModes: {},
    traits: { execution: "orchestrated" },
  }),
  wait_for_event: entry({
    type: "wait_for_event",
    label: "Wait for event",
    description: "Waits for a matching event; returns the event, or null on timeout.",
    category: "timing",
    icon: "radio",
    ports: ["success"],
    defaultPort: "success",
    sideEffect: false,
    waits: true,
    output: "The event ({ name, data, id, ts }) or null on timeout.",
    config: WaitForEventConfig,
    secretFields: [],
    templateModes: {},
    traits: { execution: "orchestrated" },
  }),
  emit_event: entry({
    type: "emit_event",
    label: "Emit event",
    description: "Publishes an event; it can trigger other workflows.",
    category: "integration",
    icon: "send",
    ports: ["success"],
    defaultPort: "success",
    sideEffect: true,
    waits: false,
    output: "{ id } of the emitted event.",
    config: EmitEventConfig,
    secretFields: [],
    templateModes: {},
    traits: { execution: "instant" },
  }),
  loop: entry({
    type: "loop",
    label: "Loop",
    description: "Runs a body of steps (or a workflow) once per item.",
    category: "flow",
    icon: "repeat",
    ports: ["done"],
    defaultPort: "done",
    sideEffect: false,
    waits: false,
    output:
      "The list of iteration values, in item (or batch) order; meta.state holds the final loop.state.",
    config: LoopConfig,
    secretFields: [],
    templateModes: { body: "literal", stateFrom: "literal" },
    traits: { execution: "orchestrated" },
  }),
  subworkflow: entry({
    type: "subworkflow",
    label: "Sub-workflow",
    description: "Runs another workflow as a linked child run and waits for it.",
    category: "flow",
    icon: "workflow",
    ports: ["success"],
    defaultPort: "success",
    sideEffect: true,
    waits: false,
    output: "The child run's output.",
    config: SubworkflowConfig,
    secretFields: [],
    templateModes: {},
    traits: { execution: "orchestrated" },
  }),
  notify: entry({
    type: "notify",
    label: "Notify",
    description: "Sends a message to Slack, a webhook or an email address.",
    category: "integration",
    icon: "bell",
    ports: ["success"],
    defaultPort: "success",
    sideEffect: true,
    waits: false,
    output: "{ delivered: true, status? }.",
    config: NotifyConfig,
    secretFields: ["target"],
    templateModes: {},
    traits: { execution: "action", recordable: true, defaultTimeoutMs: 30_000 },
  }),
  propose_change: entry({
    type: "propose_change",
    label: "Propose change",
    description:
      "Opens a change proposal for this workflow. Requires constraints.allowSelfModification.",
    category: "flow",
    icon: "git-pull-request",
    ports: ["success"],
    defaultPort: "success",
    sideEffect: true,
    waits: false,
    output: "{ proposalId, status }.",
    config: ProposeChangeConfig,
    secretFields: [],
    templateModes: { definition: "rawOnly", patch: "rawOnly" },
    traits: { execution: "action", savedWorkflowOnly: true },
  }),
  return: entry({
    type: "return",
    label: "Return",
    description: "Ends the run successfully with a value (inside a loop body: ends the iteration).",
    category: "flow",
    icon: "corner-down-left",
    ports: [],
    defaultPort: null,
    sideEffect: false,
    waits: false,
    output: "The value.",
    config: ReturnConfig,
    secretFields: [],
    templateModes: {},
    traits: { execution: "pure" },
  }),
  task: entry({
    type: "task",
    label: "Task",
    description:
      "Hands work to a person or an agent and waits for them to complete it with an output (or fail it with a reason). Shown in My queue, the API and MCP.",
    category: "human",
    icon: "clipboard-check",
    ports: ["success"],
    defaultPort: "success",
    sideEffect: false,
    waits: true,
    output:
      "The output the assignee reported (checked against outputSchema); null after a timeout with onTimeout: continue.",
    config: TaskConfig,
    secretFields: [],
    templateModes: {},
    traits: { execution: "orchestrated" },
  }),
  tool: entry({
    type: "tool",
    label: "MCP tool",
    description:
      "Calls one tool on an MCP server configured in the workspace's integrations, optionally post-processed in the QuickJS sandbox.",
    category: "integration",
    icon: "wrench",
    ports: ["success"],
    defaultPort: "success",
    sideEffect: true,
    waits: false,
    output:
      "The tool's structured content (or its text content parsed as JSON, else the text), or the transform's return value; the text content in meta.text.",
    config: ToolConfig,
    secretFields: ["arguments"],
    templateModes: { transform: "literal" },
    traits: { execution: "action", recordable: true, defaultTimeoutMs: TOOL_DEFAULT_TIMEOUT_MS },
  }),
} satisfies { readonly [T in StepType]: StepTypeInfo<T> };

/** The step types whose catalog traits match `P`, e.g. `StepTypeWith<{ execution: "pure" }>`. */
export type StepTypeWith<P> = {
  [K in StepType]: (typeof STEP_CATALOG)[K]["traits"] extends P ? K : never;
}[StepType];

export function stepTypeInfo<T extends StepType>(type: T): StepTypeInfo<T> {
  return STEP_CATALOG[type] as StepTypeInfo<T>;
}

/** All ports an edge may leave from: the type's ports plus `error`. */
export function portsOf(type: StepType): readonly string[] {
  return [...STEP_CATALOG[type].ports, ERROR_PORT];
}

/** The port an edge uses when it names none (`success` for an unknown type, so validation can continue). */
export function defaultPortOf(type: string): string {
  return (isStepType(type) ? STEP_CATALOG[type].defaultPort : null) ?? "success";
}

export const SIDE_EFFECT_STEP_TYPES: readonly StepType[] = STEP_TYPES.filter(
  (t) => STEP_CATALOG[t].sideEffect,
);
export const WAITING_STEP_TYPES: readonly StepType[] = STEP_TYPES.filter(
  (t) => STEP_CATALOG[t].waits,
);

/** A config field's `.describe()` text, looking through optional/default wrappers (for hover docs). */
export function fieldDescription(schema: z.ZodType): string | undefined {
  let current: z.ZodType | undefined = schema;
  for (let depth = 0; current && depth < 10; depth++) {
    if (current.description) return current.description;
    const inner: unknown = (current as { _zod: { def: { innerType?: unknown } } })._zod.def
      .innerType;
    current = inner as z.ZodType | undefined;
  }
  return undefined;
}

/** Field name → description for a step type's config (the inspector's hover docs). */
export function configFieldDocs(type: StepType): Record<string, string> {
  const shape = (STEP_CATALOG[type].config as z.ZodObject).shape as Record<string, z.ZodType>;
  return Object.fromEntries(
    Object.entries(shape).map(([key, field]) => [key, fieldDescription(field) ?? ""]),
  );
}
