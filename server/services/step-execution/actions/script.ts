import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createRedactor } from "@/lib/redact";
import type { StepConfig } from "@/lib/workflow/steps";
import {
  probeSandbox,
  SANDBOX_GID,
  SANDBOX_SCRATCH,
  SANDBOX_UID,
  type SandboxMount,
  type SandboxSpec,
  type ScriptSandboxConfig,
} from "@/server/sandbox/bwrap";
import {
  runScript,
  SANDBOX_PATH,
  SCRIPT_KILL_GRACE_MS,
  SCRIPT_OUTPUT_CAP_BYTES,
  type ScriptLimits,
  type ScriptRunResult,
} from "@/server/sandbox/script-runner";
import { remainingMs, userFailure } from "./failures";
import { StepFailure, type ActionContext, type ActionHandler } from "./types";

export type ScriptStepConfig = StepConfig<"script">;

export interface ScriptStepData {
  /** null when the script was ended by a signal (see meta.signal). */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  durationMs: number;
}

export interface ScriptHandlerOptions {
  /** PATH given to scripts (the environment is otherwise scrubbed). */
  path?: string;
  /** Between SIGTERM and SIGKILL; 10 s per SPEC §4. Tests shorten it. */
  killGraceMs?: number;
  limits?: ScriptLimits;
  /** Over the engine's (ctx.scriptSandbox, from SLUICE_SCRIPT_SANDBOX); default: bwrap on PATH. */
  sandbox?: ScriptSandboxConfig;
}

export const DEFAULT_SCRIPT_PATH = SANDBOX_PATH;

/** Generous defaults: they stop runaways without getting in the way of real builds. */
export const DEFAULT_SCRIPT_LIMITS: ScriptLimits = {
  fileSizeBytes: 1024 ** 3,
  maxProcesses: 2048,
  memoryBytes: 4 * 1024 ** 3,
  openFiles: 4096,
};

function decode(buf: Buffer): string {
  return new TextDecoder("utf-8", { fatal: false }).decode(buf);
}

/** Redacts the captured bytes, then cuts to the cap (so a secret straddling the cap is still caught). */
function finalOutput(buf: Buffer, redact: (s: string) => string, truncated: boolean): string {
  const text = redact(decode(buf));
  if (!truncated && Buffer.byteLength(text) <= SCRIPT_OUTPUT_CAP_BYTES) return text;
  return decode(Buffer.from(text, "utf8").subarray(0, SCRIPT_OUTPUT_CAP_BYTES)).replace(
    /\uFFFD$/,
    "",
  );
}

function scriptEnv(
  ctx: ActionContext<ScriptStepConfig>,
  home: string,
  tmp: string,
  pathValue: string,
  sandboxed: boolean,
): Record<string, string> {
  const config = ctx.config;
  const missing = Object.values(config.secrets ?? {}).filter(
    (name) => ctx.secrets?.[name] === undefined,
  );
  if (missing.length) {
    throw userFailure(
      `Secret${missing.length > 1 ? "s" : ""} ${missing.join(", ")} mapped in "secrets" ${missing.length > 1 ? "are" : "is"} not available to this run`,
      { secrets: missing },
    );
  }
  let user = sandboxed ? "nobody" : "sluice";
  if (!sandboxed) {
    try {
      user = os.userInfo().username;
    } catch {
      // No passwd entry for this uid (some containers): keep the neutral name.
      user = "sluice";
    }
  }
  const env: Record<string, string> = {
    PATH: pathValue,
    HOME: home,
    TMPDIR: tmp,
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
    TERM: "dumb",
    SHELL: "/bin/bash",
    USER: user,
    LOGNAME: user,
    SLUICE_RUN_ID: ctx.runId,
    // Empty for an inline run (no saved workflow).
    SLUICE_WORKFLOW_ID: ctx.workflowId ?? "",
    SLUICE_STEP_ID: ctx.stepId,
    SLUICE_ATTEMPT: String(ctx.attempt),
    ...config.env,
  };
  for (const [envName, secretName] of Object.entries(config.secrets ?? {})) {
    env[envName] = ctx.secrets![secretName]!;
  }
  return env;
}

/**
 * The `script` step: `bash -lc <command>` in the run's scratch directory (or `cwd` inside it),
 * refused unless the workspace enabled script steps. It runs in a bubblewrap sandbox
 * (server/sandbox/bwrap.ts): read-only system folders, the scratch folder read-write at
 * /scratch (HOME), a private /tmp, uid 65534, and no network unless the workspace's
 * `scriptNetwork` policy allows it. Without a usable bwrap the step is refused, saying why; only
 * the operator's explicit SLUICE_SCRIPT_SANDBOX=none runs scripts unsandboxed.
 * The environment is scrubbed to PATH, HOME, TMPDIR, locale and SLUICE_* ids, plus the step's
 * `env` and the secrets it maps explicitly. Output streams are capped at 64 KiB each and redacted
 * of every secret value known to the run before they leave the handler.
 *
 * A non-zero exit fails the step (class `user`: the command said no, retrying will not change
 * that) with the exit code and the stderr tail, unless `allowNonZeroExit` is set: then the step
 * completes and `output.data.exitCode` tells (branch on it with `when`). The deprecated
 * `failOnNonZero: false` reads as `allowNonZeroExit: true`.
 * Timeouts are operational failures; cancellation stops the script the same way (SIGTERM to the
 * process group, SIGKILL 10 s later).
 */
export function createScriptHandler(
  options: ScriptHandlerOptions = {},
): ActionHandler<ScriptStepConfig> {
  const killGraceMs = options.killGraceMs ?? SCRIPT_KILL_GRACE_MS;
  return async (ctx) => {
    if (!ctx.policy.scriptStepsEnabled) {
      throw userFailure(
        "Script steps are disabled in this workspace. A workspace admin can enable them under Settings → Policies.",
        { policy: "scriptStepsEnabled" },
      );
    }
    const config = ctx.config;
    const pathValue = options.path ?? DEFAULT_SCRIPT_PATH;
    const sandboxConfig = options.sandbox ?? ctx.scriptSandbox ?? { mode: "bwrap" };
    let bwrap: string | undefined;
    if (sandboxConfig.mode === "bwrap") {
      // Never a silent fallback to running unsandboxed: the step says what is missing.
      const probe = await probeSandbox(sandboxConfig.bwrapPath, pathValue);
      if (!probe.ok) throw userFailure(probe.reason, { sandbox: "bwrap" });
      bwrap = probe.bwrap;
    }
    const scratch = await ctx.scratchDir();
    const repo = ctx.repository;
    // With a repository the script runs in its own checkout of the pinned commit (inside the
    // scratch directory, removed afterwards); `cwd` is then relative to the checkout.
    const checkout = repo
      ? path.join(scratch, "checkouts", `${ctx.stepPath}@${ctx.attempt}`)
      : undefined;
    const root = checkout ?? scratch;
    const cwd = path.resolve(root, config.cwd ?? ".");
    if (cwd !== root && !cwd.startsWith(root + path.sep)) {
      throw userFailure(
        `cwd "${config.cwd}" must stay inside the ${checkout ? "checkout" : "scratch directory"}`,
        { field: "cwd" },
      );
    }
    // The path the script sees for a host path under the scratch folder.
    const inside = (p: string) =>
      bwrap ? path.join(SANDBOX_SCRATCH, path.relative(scratch, p)) : p;
    const tmp = bwrap ? "/tmp" : path.join(scratch, ".tmp");
    if (!bwrap) await fs.mkdir(tmp, { recursive: true });
    const env = scriptEnv(ctx, inside(scratch), tmp, pathValue, bwrap !== undefined);
    const sandbox = bwrap
      ? {
          bwrap,
          network: ctx.policy.scriptNetwork === "allowed",
          hiddenPaths: sandboxConfig.hiddenPaths,
        }
      : undefined;
    if (sandbox) await handOver(scratch, scratch);
    if (!repo || !checkout) {
      await fs.mkdir(cwd, { recursive: true });
      if (sandbox) await handOver(scratch, cwd);
      return runInDirectory(ctx, {
        scratch,
        cwd,
        env,
        killGraceMs,
        options,
        sandbox: sandbox && {
          ...sandbox,
          cwd: inside(cwd),
          mounts: [{ host: scratch, inside: SANDBOX_SCRATCH, writable: true }],
        },
      });
    }
    const writable = config.writable === true;
    await repo.remove(checkout);
    try {
      await repo.checkout(checkout, { writable });
    } catch (e) {
      throw userFailure(`Could not check out the run's repository: ${(e as Error).message}`, {
        repository: repo.url,
        sha: repo.sha,
      });
    }
    try {
      const cwdExists = await fs.stat(cwd).catch(() => null);
      if (!cwdExists?.isDirectory())
        throw userFailure(`cwd "${config.cwd}" is not a directory of the checkout`, {
          field: "cwd",
        });
      const mounts: SandboxMount[] = [{ host: scratch, inside: SANDBOX_SCRATCH, writable: true }];
      if (sandbox) {
        // The script's own files (git refuses a repository of another owner). Read-only is then a
        // read-only mount, which its owner cannot chmod away. The clone shares the cache's
        // objects, shown read-only too.
        await handOver(scratch, checkout, { recursive: true });
        if (!writable) mounts.push({ host: checkout, inside: inside(checkout), writable: false });
        for (const objects of await alternates(checkout))
          mounts.push({ host: objects, inside: objects, writable: false });
      }
      const result = await runInDirectory(ctx, {
        scratch,
        cwd,
        env: { ...env, SLUICE_REPOSITORY_URL: repo.url, SLUICE_REPOSITORY_SHA: repo.sha },
        killGraceMs,
        options,
        // Read-only must bind Sluice running as root too (CAP_DAC_OVERRIDE ignores write bits).
        honorFilePermissions: !writable,
        sandbox: sandbox && { ...sandbox, cwd: inside(cwd), mounts },
        meta: { checkout: { sha: repo.sha, ref: repo.ref, writable } },
      });
      return result;
    } finally {
      await repo
        .remove(checkout)
        .catch((e: unknown) => ctx.log.warn("could not remove a repository checkout", { err: e }));
    }
  };
}

/**
 * When Sluice runs as root the sandboxed script is uid 65534 on the host too: the folders it may
 * write (the scratch folder, each folder from it down to `to`) must be its own. Otherwise the
 * sandbox's user maps to Sluice's own user, which owns them already.
 */
async function handOver(from: string, to: string, opts: { recursive?: boolean } = {}) {
  if (process.getuid?.() !== 0) return;
  if (opts.recursive) {
    const entries = await fs.readdir(to, { recursive: true });
    for (const entry of entries) await fs.lchown(path.join(to, entry), SANDBOX_UID, SANDBOX_GID);
  }
  let dir = to;
  for (;;) {
    await fs.chown(dir, SANDBOX_UID, SANDBOX_GID);
    if (dir === from || !dir.startsWith(from + path.sep)) break;
    dir = path.dirname(dir);
  }
}

/** The object folders a `git clone --shared` checkout borrows (.git/objects/info/alternates). */
async function alternates(checkout: string): Promise<string[]> {
  const file = path.join(checkout, ".git", "objects", "info", "alternates");
  const text = await fs.readFile(file, "utf8").catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return "";
    throw e;
  });
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#") && path.isAbsolute(l));
}

async function runInDirectory(
  ctx: ActionContext<ScriptStepConfig>,
  a: {
    scratch: string;
    cwd: string;
    env: Record<string, string>;
    killGraceMs: number;
    options: ScriptHandlerOptions;
    honorFilePermissions?: boolean;
    sandbox?: SandboxSpec;
    meta?: Record<string, unknown>;
  },
) {
  const { scratch, cwd, env, killGraceMs, options } = a;
  const config = ctx.config;

  const secretValues = [...ctx.secretValues, ...Object.values(ctx.secrets ?? {})];
  const redactor = createRedactor(secretValues);
  const longestSecret = secretValues.reduce((m, v) => Math.max(m, Buffer.byteLength(v)), 0);
  const timeoutMs = remainingMs(ctx, config.timeoutMs);

  let result: ScriptRunResult;
  try {
    result = await runScript({
      command: config.command,
      // Inside the sandbox bwrap changes to the step's folder itself.
      cwd: a.sandbox ? "/" : cwd,
      env,
      timeoutMs,
      signal: ctx.signal,
      killGraceMs,
      // Room for the longest secret in its longest encoding (hex doubles, URL-encoding triples).
      overflowBytes: longestSecret * 3,
      honorFilePermissions: a.honorFilePermissions,
      sandbox: a.sandbox,
      limits: {
        ...DEFAULT_SCRIPT_LIMITS,
        cpuSeconds: Math.ceil(timeoutMs / 1000) + Math.ceil(killGraceMs / 1000) + 5,
        ...options.limits,
      },
    });
  } catch (e) {
    throw new StepFailure(`Could not start bash: ${(e as Error).message}`, "internal");
  }

  const data: ScriptStepData = {
    exitCode: result.exitCode,
    stdout: finalOutput(result.stdout, redactor.string, result.stdoutTruncated),
    stderr: finalOutput(result.stderr, redactor.string, result.stderrTruncated),
    stdoutTruncated: result.stdoutTruncated,
    stderrTruncated: result.stderrTruncated,
    durationMs: result.durationMs,
  };
  const meta = {
    cwd: path.relative(scratch, cwd) || ".",
    ...a.meta,
    ...(result.signal ? { signal: result.signal } : {}),
    ...(result.sent ? { sent: result.sent } : {}),
  };
  const tail = (s: string) => s.slice(-2000);

  if (result.stoppedBy) {
    const how =
      result.sent === "SIGKILL" ? `SIGTERM, then SIGKILL after ${killGraceMs / 1000} s` : "SIGTERM";
    const message =
      result.stoppedBy === "timeout"
        ? `Script timed out after ${Math.round(timeoutMs / 1000)} s and was stopped (${how})`
        : `Script was cancelled and stopped (${how})`;
    throw new StepFailure(message, "operational", {
      ...meta,
      stoppedBy: result.stoppedBy,
      exitCode: result.exitCode,
      stdoutTail: tail(data.stdout),
      stderrTail: tail(data.stderr),
    });
  }
  const allowNonZero = config.allowNonZeroExit ?? config.failOnNonZero === false;
  if (!allowNonZero && result.exitCode !== 0) {
    throw new StepFailure(
      `Script exited with ${result.exitCode === null ? `signal ${result.signal}` : `code ${result.exitCode}`}${data.stderr ? `: ${tail(data.stderr).slice(-500)}` : ""}`,
      "user",
      {
        ...meta,
        exitCode: result.exitCode,
        stdoutTail: tail(data.stdout),
        stderrTail: tail(data.stderr),
      },
    );
  }
  return { data, meta };
}

export const scriptHandler: ActionHandler<ScriptStepConfig> = createScriptHandler();
