/**
 * Configs of the steps that compute or call out once: transform, condition, return, http, script
 * and code.
 */
import { z } from "zod";
import { Condition } from "../conditions";
import { isPlainObject } from "../json";
import { hasTemplate } from "../templates";
import {
  identifier,
  jsonValue,
  literalHttpUrlProblem,
  SecretName,
  templateString,
} from "../primitives";
import { configIssue, crossRule, fieldRule } from "./rules";

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

export const HeaderName = z
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

export const ModuleSource = (what: string) =>
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
