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
  /** Another ref (or URL and ref) for the workflow's repository (--ref, --repository-url). */
  repository?: { url?: string; ref: string };
  wait: boolean;
}

const REQUEST_KEYS = new Set(["workflow", "variables", "input", "runtime", "workflowHash"]);
const RUNTIME_KEYS = new Set(["idempotencyKey", "timeoutMs", "maxSteps", "maxParallel"]);

/** Per-run limit overrides, with the same ranges the definition's `constraints` accept. */
const LIMITS = [
  { key: "timeoutMs", flag: "timeout-ms", min: 1_000, max: 366 * 86_400_000 },
  { key: "maxSteps", flag: "max-steps", min: 1, max: MAX_STEPS_HARD_CAP },
  { key: "maxParallel", flag: "max-parallel", min: 1, max: MAX_PARALLEL_CAP },
] as const;

/**
 * Builds the run request from `sluice run`'s flags and the request JSON read from stdin (null
 * when none was piped). Unknown request keys are refused, not ignored. A definition object as
 * `workflow` (or --definition) is an inline run: no version, hash or repository override.
 */
export function buildRunRequest(values: ParsedArgs["values"], stdin: unknown): RunRequest {
  if (stdin !== null && !isObject(stdin))
    throw usageError(
      "The request on stdin must be a JSON object: { workflow, variables, runtime }",
    );
  const req = stdin ?? {};
  const unknownKeys = Object.keys(req).filter((k) => !REQUEST_KEYS.has(k));
  if (unknownKeys.length)
    throw usageError(
      `Unknown request key${unknownKeys.length > 1 ? "s" : ""} ${unknownKeys.map((k) => `"${k}"`).join(", ")} (expected workflow, variables, runtime, workflowHash)`,
    );
  const runtime = req.runtime ?? {};
  if (!isObject(runtime)) throw usageError("runtime must be an object");
  const unknownRuntime = Object.keys(runtime).filter((k) => !RUNTIME_KEYS.has(k));
  if (unknownRuntime.length)
    throw usageError(
      `Unknown runtime key "${unknownRuntime[0]}" (expected idempotencyKey, timeoutMs, maxSteps, maxParallel)`,
    );

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

  const flagInput = str(values, "input");
  const input =
    flagInput !== undefined ? jsonFlag("input", flagInput) : (req.variables ?? req.input ?? {});
  if (!isObject(input))
    throw usageError("The run input (--input / variables) must be a JSON object");

  const limits = Object.fromEntries(
    LIMITS.flatMap(({ key, flag, min, max }) => {
      const value = intFlag(flag, values[flag] ?? runtime[key], { min, max });
      return value === undefined ? [] : [[key, value]];
    }),
  ) as RunRequest["limits"];

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
    ...(ref !== undefined
      ? { repository: { ...(repositoryUrl !== undefined ? { url: repositoryUrl } : {}), ref } }
      : {}),
    wait: values.wait !== false,
  };
}
