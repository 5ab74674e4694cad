/**
 * The one place that reads process.env. Parsed once; a missing or malformed variable stops the
 * process with a message naming it. Everything else receives configuration from here (services get
 * clients through their context, so tests need no environment at all).
 */
import { z } from "zod";
import { DEFAULT_PLAN, PLAN_IDS } from "./lib/quotas/plans";

const bool = z
  .enum(["1", "0", "true", "false", "yes", "no", "on", "off", ""])
  .transform((v) => ["1", "true", "yes", "on"].includes(v));

const port = z.coerce.number().int().min(1).max(65535);

const EnvSchema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    /** Real Postgres. Without it Sluice runs on embedded PGlite in SLUICE_DATA_DIR. */
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
      .optional(),
    /** Folder for the embedded database and generated keys. */
    SLUICE_DATA_DIR: z.string().min(1).default("./.data"),
    /** Apply pending migrations at start-up (on by default; PGlite always migrates in-process). */
    SLUICE_AUTO_MIGRATE: bool.default(true),
    /** The public origin of the app, used for links (invitations, webhooks, approval links). */
    SLUICE_PUBLIC_URL: z.url().optional(),
    PORT: port.default(3000),
    /**
     * Master secret (≥ 32 chars). Session signing, resume tokens and secret encryption keys are
     * derived from it. Optional on one machine (generated into the data folder on first start);
     * required with DATABASE_URL in production so every instance shares it.
     */
    SLUICE_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
    /** Allow anyone to sign up and get their own workspace (otherwise: first user, then invitations). */
    SLUICE_OPEN_SIGNUP: bool.default(false),
    GITHUB_ID: z.string().min(1).optional(),
    GITHUB_SECRET: z.string().min(1).optional(),
    /** `embedded` (default): Sluice's own executor in this process. `inngest`: a real Inngest. */
    SLUICE_EXECUTOR: z.enum(["embedded", "inngest"]).default("embedded"),
    SLUICE_EXECUTOR_PORT: port.default(8288),
    /** Embedded executor: SDK calls in flight at once, and the timeout of each call. */
    SLUICE_EXECUTOR_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(16),
    SLUICE_EXECUTOR_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).default(300_000),
    /** Embedded executor: let the SDK run consecutive steps in one request and checkpoint them. */
    SLUICE_EXECUTOR_CHECKPOINTING: bool.default(true),
    /**
     * Embedded executor: how long a claimed job stays leased without a heartbeat (renewed every
     * third). When an instance dies, its in-flight runs continue elsewhere after at most this long.
     * Unset: the executor's default (DEFAULT_LEASE_MS in inngest/executor/options.ts).
     */
    SLUICE_EXECUTOR_LEASE_MS: z.coerce.number().int().min(3_000).max(600_000).optional(),
    INNGEST_BASE_URL: z.url().optional(),
    INNGEST_EVENT_KEY: z.string().min(1).optional(),
    INNGEST_SIGNING_KEY: z.string().min(1).optional(),
    /** The previous signing key while rotating keys (accepted on verification, never used to sign). */
    INNGEST_SIGNING_KEY_FALLBACK: z.string().min(1).optional(),
    INNGEST_DEV: z.string().optional(),
    /**
     * SLUICE_EXECUTOR=inngest: the dashboard page of an execution, `{runId}` standing for its id
     * (e.g. `https://app.inngest.com/env/production/runs/{runId}` on Inngest Cloud). Unset: the
     * Dev Server's or self-hosted server's own UI at INNGEST_BASE_URL; no link on Cloud.
     */
    SLUICE_INNGEST_DASHBOARD_URL: z
      .url()
      .refine((v) => v.includes("{runId}"), "must contain {runId} where the run's id goes")
      .optional(),
    /** Set by Next itself; the database must never be opened during `next build`. */
    NEXT_PHASE: z.string().optional(),
    LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
    /** Admission limits (SPEC §5), overridable per workspace. */
    SLUICE_MAX_ACTIVE_RUNS_PER_USER: z.coerce.number().int().min(1).default(5),
    SLUICE_MAX_ACTIVE_RUNS_PER_WORKSPACE: z.coerce.number().int().min(1).default(50),
    /**
     * The quota plan of workspaces that have none set (lib/quotas/plans.ts). `enterprise` (the
     * default) is unlimited: a self-hosted instance is not metered unless the operator says so.
     */
    SLUICE_DEFAULT_PLAN: z.enum(PLAN_IDS).default(DEFAULT_PLAN),
    /**
     * The run driver's execution model for runs that start from now on (runs in flight keep
     * theirs): 2 = pure steps in waves, 1 = one durable step per step (a switch back, should
     * waves misbehave). See ENGINE_VERSION in server/services/run-state/run-plan.ts.
     */
    SLUICE_ENGINE_VERSION: z.coerce.number().int().min(1).max(2).default(2),
    /** Schedules may not fire more often than this (seconds between two fire times). */
    SLUICE_SCHEDULE_MIN_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
    /**
     * Reverse proxies in front of the app that append the client's address to X-Forwarded-For
     * (server/http/client-address.ts). 0: the app is reached directly; Next's server then fills
     * the header with the socket address, but only when the client sent none.
     */
    SLUICE_TRUSTED_PROXIES: z.coerce.number().int().min(0).max(10).default(0),
    /**
     * Sign-in throttle (lib/security/auth-throttle.ts): the first lock after the free failures
     * lasts this long, each further failure doubles it up to the cap. Lower it only in tests.
     */
    SLUICE_AUTH_LOCK_BASE_SECONDS: z.coerce.number().int().min(1).max(3600).default(15),
    /**
     * How `script` steps are isolated: `bwrap` (default) runs each in a bubblewrap sandbox and
     * refuses script steps where bwrap is missing or cannot build one; `none` runs them unsandboxed
     * as the app's user, for development machines without bwrap only (logged as a warning).
     */
    SLUICE_SCRIPT_SANDBOX: z.enum(["bwrap", "none"]).default("bwrap"),
    /** Retention (days). */
    SLUICE_RUN_RETENTION_DAYS: z.coerce.number().int().min(1).default(180),
    SLUICE_STEP_RETENTION_DAYS: z.coerce.number().int().min(1).default(30),
    /** Repository caches (bare clones for repository context) unused this long are removed. */
    SLUICE_REPOSITORY_CACHE_DAYS: z.coerce.number().int().min(1).default(14),
    /** Closed change proposals are deleted after this many days (their audit rows stay). */
    SLUICE_PROPOSAL_RETENTION_DAYS: z.coerce.number().int().min(1).default(365),
    /**
     * `/api/metrics` (Prometheus, docs/operations.md "Metrics"): answered only when a token or an
     * address list is set (404 otherwise). The token is sent as `Authorization: Bearer <token>`;
     * with both set, a scrape needs both.
     */
    SLUICE_METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
    /** Addresses allowed to scrape `/api/metrics`: comma-separated IPs or CIDRs (`10.0.0.0/8,::1`). */
    SLUICE_METRICS_ALLOW: z
      .string()
      .transform((v, ctx) => {
        const items = v
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean);
        for (const item of items)
          if (!isCidr(item))
            ctx.addIssue({ code: "custom", message: `"${item}" is not an IP address or CIDR` });
        return items;
      })
      .optional(),
    /**
     * OpenTelemetry traces (docs/operations.md "Tracing"): the OTLP/HTTP base URL of a collector
     * (`http://otel-collector:4318`; spans go to `<url>/v1/traces`). Unset: no tracing SDK is loaded.
     */
    OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
    /** Headers sent with every export, `key=value` pairs separated by commas (W3C baggage style). */
    OTEL_EXPORTER_OTLP_HEADERS: z.string().optional(),
    OTEL_SERVICE_NAME: z.string().min(1).default("sluice"),
  })
  .superRefine((env, ctx) => {
    if (Boolean(env.GITHUB_ID) !== Boolean(env.GITHUB_SECRET)) {
      ctx.addIssue({
        code: "custom",
        path: ["GITHUB_SECRET"],
        message: "GITHUB_ID and GITHUB_SECRET must be set together",
      });
    }
    if (env.NODE_ENV === "production" && env.DATABASE_URL && !env.SLUICE_SECRET) {
      ctx.addIssue({
        code: "custom",
        path: ["SLUICE_SECRET"],
        message: "is required in production with DATABASE_URL (every instance must share it)",
      });
    }
    if (env.SLUICE_EXECUTOR === "inngest" && !env.INNGEST_DEV && !env.INNGEST_SIGNING_KEY) {
      ctx.addIssue({
        code: "custom",
        path: ["INNGEST_SIGNING_KEY"],
        message: "is required with SLUICE_EXECUTOR=inngest unless INNGEST_DEV is set",
      });
    }
  });

export type Env = z.infer<typeof EnvSchema>;

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/**
 * `10.0.0.0/8`, `::1/128` or a bare address. Without node:net (proxy.ts imports this file): IPv6
 * is checked by the URL parser, which accepts exactly the valid bracketed hosts.
 */
function isCidr(item: string): boolean {
  const [addr = "", prefix, ...rest] = item.split("/");
  let bits: number;
  if (IPV4.test(addr)) bits = 32;
  else if (addr.includes(":") && URL.canParse(`http://[${addr}]/`)) bits = 128;
  else return false;
  if (rest.length) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits);
}

export function parseEnv(source: Record<string, string | undefined>): Env {
  // Empty strings mean "unset" (docker-compose and .env files often produce them).
  const cleaned = Object.fromEntries(
    Object.entries(source).filter(([, v]) => v !== undefined && v !== ""),
  );
  const result = EnvSchema.safeParse(cleaned);
  if (!result.success) {
    const lines = result.error.issues.map(
      (i) => `  - ${i.path.join(".") || "(env)"}: ${i.message}`,
    );
    throw new Error(`Invalid configuration (see .env.example):\n${lines.join("\n")}`);
  }
  return result.data;
}

function load(): Env {
  try {
    return parseEnv(process.env);
  } catch (e) {
    console.error(`\n[sluice] ${(e as Error).message}\n`);
    process.exit(1);
  }
}

const g = globalThis as typeof globalThis & { __sluiceEnv?: Env };
export const env: Env = (g.__sluiceEnv ??= load());

/** The origin users reach the app at. */
export function publicUrl(e: Env = env): string {
  return (e.SLUICE_PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, "");
}

// next-auth v4 reads NEXTAUTH_URL itself; derive it so operators set one variable, not two.
process.env.NEXTAUTH_URL ??= publicUrl(env);
