import { MAX_PARALLEL_CAP, MAX_STEPS_HARD_CAP } from "../../lib/workflow/definition";
import { HASH_PATTERN } from "../../lib/workflow/hash";
import { repositoryRefProblem, repositoryUrlProblem } from "../../lib/workflow/repository";
import { intFlag, isObject, jsonFlag, str, type ParsedArgs } from "./args";
import { usageError } from "./errors";

/** A run request after merging stdin JSON (RFC §6.5) and flags (flags win). */
export type RunRequest = RunRequestOptions &
  (
    | { /** The workflow's id (`wf_…`) or slug. */ workflow: string; definition?: undefined }
    | {
        workflow?: undefined;
        /** An unsaved definition to run inline (`workflow` as an object, or --definition). */
        definition: Record<string, unknown>;
      }
  );

interface RunRequestOptions {
  input: Record<string, unknown>;
  idempotencyKey?: string;
  /** The published hash the caller expects (`sha256:…`); a different one is exit 20. */
  workflowHash?: string;
  /** Per-run limits; the server refuses values looser than the workflow's constraints (exit 10). */
  limits?: { timeoutMs?: number; maxSteps?: number; maxParallel?: number };
  /** What started the run (`trigger`, with `runtime.attempt` as `attempt`), kept on the run. */
  trigger?: Record<string, unknown>;
  /** The envelope's outputs, in bytes of JSON, at most (runtime.policy.maxOutputBytes). */
  maxOutputBytes?: number;
  /** Another ref (or URL and ref) for the workflow's repository (--ref, --repository-url). */
  repository?: { url?: string; ref: string };
  wait: boolean;
}

/** The keys RFC §6.5's request takes at each level (`input`: Sluice's name for `variables`). */
const REQUEST_KEYS = ["workflow", "variables", "input", "trigger", "runtime", "workflowHash"];
/** `timeoutMs`, `maxSteps`, `maxParallel` directly in runtime: Sluice's shorthand for policy. */
const RUNTIME_KEYS = [
  "idempotencyKey",
  "attempt",
  "policy",
  "timeoutMs",
  "maxSteps",
  "maxParallel",
];
const POLICY_KEYS = ["timeoutMs", "maxSteps", "maxParallel", "maxOutputBytes"];

/** Per-run limit overrides, with the same ranges the definition's `constraints` accept. */
const LIMITS = [
  { key: "timeoutMs", flag: "timeout-ms", min: 1_000, max: 366 * 86_400_000 },
  { key: "maxSteps", flag: "max-steps", min: 1, max: MAX_STEPS_HARD_CAP },
  { key: "maxParallel", flag: "max-parallel", min: 1, max: MAX_PARALLEL_CAP },
] as const;
/** The largest output bound: the envelope is one JSON document a caller reads into memory. */
export const MAX_OUTPUT_BYTES_CAP = 1024 * 1024 * 1024;
export const MAX_ATTEMPT = 10_000;

/** The first key of `obj` not in `known`, refused with its full path (`runtime.policy.x`). */
function refuseUnknown(obj: Record<string, unknown>, known: readonly string[], at: string[]) {
  const unknown = Object.keys(obj).find((k) => !known.includes(k));
  if (unknown === undefined) return;
  const path = [...at, unknown];
  const where = at.length ? at.join(".") : "The request";
  throw usageError(
    `Unknown field "${path.join(".")}" in the request on stdin (${where} takes ${known.join(", ")})`,
    { issues: [{ path, message: "Unknown field" }] },
  );
}

/** An object at `path` of the request, or {} when absent. */
function objectAt(value: unknown, path: string): Record<string, unknown> {
  if (value === undefined) return {};
  if (!isObject(value)) throw usageError(`${path} must be a JSON object`);
  return value;
}

/**
 * Builds the run request from `sluice run`'s flags and the request JSON read from stdin (null
 * when none was piped). Unknown request keys are refused, not ignored. A definition object as
 * `workflow` (or --definition) is an inline run: no version, hash or repository override.
 */
export function buildRunRequest(values: ParsedArgs["values"], stdin: unknown): RunRequest {
  if (stdin !== null && !isObject(stdin))
    throw usageError(
      "The request on stdin must be a JSON object: { workflow, variables, trigger, runtime }",
    );
  const req = stdin ?? {};
  refuseUnknown(req, REQUEST_KEYS, []);
  const runtime = objectAt(req.runtime, "runtime");
  refuseUnknown(runtime, RUNTIME_KEYS, ["runtime"]);
  const policy = objectAt(runtime.policy, "runtime.policy");
  refuseUnknown(policy, POLICY_KEYS, ["runtime", "policy"]);
  const triggerIn = req.trigger === undefined ? undefined : objectAt(req.trigger, "trigger");

  const definitionFlag = str(values, "definition");
  if (definitionFlag !== undefined && str(values, "workflow") !== undefined)
    throw usageError("Give --workflow or --definition, not both");
  const workflow =
    definitionFlag !== undefined
      ? jsonFlag("definition", definitionFlag)
      : (str(values, "workflow") ?? req.workflow);
  if (workflow === undefined || workflow === "")
    throw usageError(
      'Name the workflow: --workflow <id|slug>, --definition @file.json, or { "workflow": … } on stdin',
    );
  if (typeof workflow !== "string" && !isObject(workflow))
    throw usageError("workflow must be an id, a slug or a definition object");

  if (req.variables !== undefined && req.input !== undefined)
    throw usageError('Give the run input as "variables" or "input", not both');
  const flagInput = str(values, "input");
  const input =
    flagInput !== undefined ? jsonFlag("input", flagInput) : (req.variables ?? req.input ?? {});
  if (!isObject(input))
    throw usageError("The run input (--input / variables) must be a JSON object");

  const limits = Object.fromEntries(
    LIMITS.flatMap(({ key, flag, min, max }) => {
      if (policy[key] !== undefined && runtime[key] !== undefined)
        throw usageError(`Give runtime.policy.${key} or runtime.${key}, not both`);
      const fromStdin = policy[key] !== undefined ? `runtime.policy.${key}` : `runtime.${key}`;
      const value =
        values[flag] !== undefined
          ? intFlag(flag, values[flag], { min, max })
          : intFlag(fromStdin, policy[key] ?? runtime[key], { min, max }, fromStdin);
      return value === undefined ? [] : [[key, value]];
    }),
  ) as RunRequest["limits"];
  const maxOutputBytes =
    values["max-output-bytes"] !== undefined
      ? intFlag("max-output-bytes", values["max-output-bytes"], {
          min: 1,
          max: MAX_OUTPUT_BYTES_CAP,
        })
      : intFlag(
          "runtime.policy.maxOutputBytes",
          policy.maxOutputBytes,
          { min: 1, max: MAX_OUTPUT_BYTES_CAP },
          "runtime.policy.maxOutputBytes",
        );

  // The caller's attempt is trigger metadata: with the same idempotency key a retry answers the
  // run the first attempt started, so the run records the attempt that started it.
  const attempt = intFlag(
    "runtime.attempt",
    runtime.attempt,
    { min: 1, max: MAX_ATTEMPT },
    "runtime.attempt",
  );
  if (attempt !== undefined && triggerIn?.attempt !== undefined && triggerIn.attempt !== attempt)
    throw usageError(
      `runtime.attempt (${attempt}) and trigger.attempt (${JSON.stringify(triggerIn.attempt)}) disagree: give one`,
    );
  const trigger =
    triggerIn || attempt !== undefined
      ? { ...triggerIn, ...(attempt !== undefined ? { attempt } : {}) }
      : undefined;

  const idempotencyKey = str(values, "idempotency-key") ?? runtime.idempotencyKey;
  if (
    idempotencyKey !== undefined &&
    (typeof idempotencyKey !== "string" || !idempotencyKey || idempotencyKey.length > 200)
  )
    throw usageError("runtime.idempotencyKey must be a string of 1–200 characters");
  const workflowHash = str(values, "workflow-hash") ?? req.workflowHash;
  if (
    workflowHash !== undefined &&
    (typeof workflowHash !== "string" || !HASH_PATTERN.test(workflowHash))
  )
    throw usageError(
      `--workflow-hash must look like sha256:<64 hex digits>, got ${JSON.stringify(workflowHash)}`,
    );

  const ref = str(values, "ref");
  const repositoryUrl = str(values, "repository-url");
  if (repositoryUrl !== undefined && ref === undefined)
    throw usageError("--repository-url needs --ref: name the branch, tag or commit to run");
  const refProblem = ref === undefined ? null : repositoryRefProblem(ref);
  if (refProblem) throw usageError(`--ref: ${refProblem}`);
  const urlProblem = repositoryUrl === undefined ? null : repositoryUrlProblem(repositoryUrl);
  if (urlProblem) throw usageError(`--repository-url: ${urlProblem}`);

  if (isObject(workflow)) {
    const notInline = [
      workflowHash !== undefined && "--workflow-hash",
      ref !== undefined && "--ref",
    ].filter(Boolean);
    if (notInline.length)
      throw usageError(
        `${notInline.join(" and ")} ${notInline.length > 1 ? "apply" : "applies"} to published workflows, not to an inline definition`,
      );
  }

  return {
    ...(typeof workflow === "string" ? { workflow } : { definition: workflow }),
    input,
    ...(idempotencyKey ? { idempotencyKey } : {}),
    ...(workflowHash ? { workflowHash } : {}),
    ...(Object.keys(limits!).length ? { limits } : {}),
    ...(trigger ? { trigger } : {}),
    ...(maxOutputBytes !== undefined ? { maxOutputBytes } : {}),
    ...(ref !== undefined
      ? { repository: { ...(repositoryUrl !== undefined ? { url: repositoryUrl } : {}), ref } }
      : {}),
    wait: values.wait !== false,
  };
}
