import "server-only";
import { spawn } from "node:child_process";
import { sandboxCommand, type SandboxSpec } from "./bwrap";

/**
 * Runs a shell command the way `script` steps need: `bash -lc <command>` in its own process
 * group (spawned detached), with exactly the environment given, resource limits set by `ulimit`
 * before the command starts, stdout/stderr captured up to a cap, and a two-stage stop — SIGTERM
 * to the whole group on timeout or cancel, SIGKILL `killGraceMs` later. When the shell exits,
 * whatever it left running in its group is killed too, so nothing outlives the step (a process
 * that deliberately starts its own session escapes this; the CPU-time limit still bounds it).
 * With `sandbox`, the shell runs inside bubblewrap (./bwrap.ts): its own pid namespace, so even
 * a process that left the group dies with the sandbox.
 */

export interface ScriptLimits {
  /** RLIMIT_CPU per process, seconds. */
  cpuSeconds?: number;
  /** RLIMIT_FSIZE, bytes: the largest file the script may write. */
  fileSizeBytes?: number;
  /** RLIMIT_NPROC (not enforced for root). */
  maxProcesses?: number;
  /**
   * RLIMIT_DATA, bytes: heap and private writable memory. Used instead of RLIMIT_AS because
   * address-space limits break WebAssembly and JIT runtimes, which reserve large unused ranges.
   */
  memoryBytes?: number;
  /** RLIMIT_NOFILE. */
  openFiles?: number;
}

export interface ProcessRunOptions {
  cwd: string;
  /** The complete environment of the script; nothing is inherited. */
  env: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Between SIGTERM and SIGKILL. Default 10 s (SPEC §4). */
  killGraceMs?: number;
  /** Per stream. Default 64 KiB. */
  maxOutputBytes?: number;
  /** Extra bytes kept beyond the cap so a secret straddling it can still be redacted whole. */
  overflowBytes?: number;
}

export interface ScriptRunOptions extends ProcessRunOptions {
  command: string;
  limits?: ScriptLimits;
  /**
   * Run without CAP_DAC_OVERRIDE when Sluice runs as root, so file permissions bind the script
   * as they bind any other user (a read-only repository checkout stays read-only). Needs
   * `setpriv` (util-linux); a no-op for other users, whom permissions bind anyway.
   */
  honorFilePermissions?: boolean;
  /** Run inside bubblewrap (`cwd` is then the host folder bwrap starts from; use "/"). */
  sandbox?: SandboxSpec;
}

export interface ScriptRunResult {
  /** null when the shell was ended by a signal. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: Buffer;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  durationMs: number;
  /** Why Sluice stopped the script, if it did. */
  stoppedBy: "timeout" | "cancel" | null;
  /** The strongest signal Sluice had to send to the group. */
  sent: "SIGTERM" | "SIGKILL" | null;
}

/** PATH given to scripts and git subprocesses (their environment is otherwise scrubbed). */
export const SANDBOX_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
export const SCRIPT_OUTPUT_CAP_BYTES = 64 * 1024;
export const SCRIPT_KILL_GRACE_MS = 10_000;
/** How long to wait for stdout/stderr to close after the shell exited. */
const DRAIN_MS = 2_000;

function ulimitPrelude(limits: ScriptLimits = {}): string {
  // Each limit is best effort: `ulimit` fails quietly when the current hard limit is already lower.
  const parts = ["ulimit -c 0 2>/dev/null"];
  const kib = (bytes: number) => Math.max(1, Math.floor(bytes / 1024));
  if (limits.cpuSeconds) parts.push(`ulimit -t ${Math.ceil(limits.cpuSeconds)} 2>/dev/null`);
  if (limits.fileSizeBytes) parts.push(`ulimit -f ${kib(limits.fileSizeBytes)} 2>/dev/null`);
  if (limits.maxProcesses) parts.push(`ulimit -u ${limits.maxProcesses} 2>/dev/null`);
  if (limits.memoryBytes) parts.push(`ulimit -d ${kib(limits.memoryBytes)} 2>/dev/null`);
  if (limits.openFiles) parts.push(`ulimit -n ${limits.openFiles} 2>/dev/null`);
  return parts.join("; ");
}

class Capture {
  private chunks: Buffer[] = [];
  private kept = 0;
  total = 0;
  constructor(private readonly keep: number) {}
  push(chunk: Buffer) {
    this.total += chunk.length;
    if (this.kept >= this.keep) return;
    const part = chunk.subarray(0, this.keep - this.kept);
    this.chunks.push(part);
    this.kept += part.length;
  }
  buffer() {
    return Buffer.concat(this.chunks, this.kept);
  }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (e) {
    // ESRCH: the group is already gone, which is what we wanted.
    if ((e as NodeJS.ErrnoException).code !== "ESRCH") throw e;
  }
}

export function runScript(options: ScriptRunOptions): Promise<ScriptRunResult> {
  // $0 names the process; $1 is the command, so it is never re-parsed by the outer shell.
  const wrapper = `${ulimitPrelude(options.limits)}; exec bash -lc "$1"`;
  const argv = ["bash", "-c", wrapper, "sluice-script", options.command];
  const asRoot = process.getuid?.() === 0;
  if (options.sandbox) {
    const { file, args } = sandboxCommand(options.sandbox, argv, asRoot);
    return runProcess(file, args, options);
  }
  if (options.honorFilePermissions && asRoot)
    argv.unshift("setpriv", "--inh-caps=-dac_override", "--bounding-set=-dac_override", "--");
  return runProcess(argv[0]!, argv.slice(1), options);
}

/**
 * Runs one program with an argument array (never a shell) under the same rules as scripts:
 * exactly the environment given, its own process group, capped output, SIGTERM → SIGKILL on
 * timeout or cancel. Git subprocesses (repository context) use it directly.
 */
export function runProcess(
  file: string,
  args: readonly string[],
  options: ProcessRunOptions,
): Promise<ScriptRunResult> {
  const cap = options.maxOutputBytes ?? SCRIPT_OUTPUT_CAP_BYTES;
  const keep = cap + (options.overflowBytes ?? 0);
  const grace = options.killGraceMs ?? SCRIPT_KILL_GRACE_MS;
  const started = Date.now();
  const stdout = new Capture(keep);
  const stderr = new Capture(keep);

  return new Promise<ScriptRunResult>((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env as NodeJS.ProcessEnv,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stoppedBy: ScriptRunResult["stoppedBy"] = null;
    let sent: ScriptRunResult["sent"] = null;
    let killTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let finished = false;

    const stop = (why: "timeout" | "cancel") => {
      if (exit || stoppedBy || child.pid === undefined) return;
      stoppedBy = why;
      sent = "SIGTERM";
      killGroup(child.pid, "SIGTERM");
      killTimer = setTimeout(() => {
        sent = "SIGKILL";
        if (child.pid !== undefined) killGroup(child.pid, "SIGKILL");
      }, grace);
    };
    const timeout = setTimeout(() => stop("timeout"), options.timeoutMs);
    const onAbort = () => stop("cancel");
    if (options.signal?.aborted) queueMicrotask(onAbort);
    else options.signal?.addEventListener("abort", onAbort, { once: true });

    const finish = () => {
      if (finished || !exit) return;
      finished = true;
      clearTimeout(timeout);
      clearTimeout(killTimer);
      clearTimeout(drainTimer);
      options.signal?.removeEventListener("abort", onAbort);
      resolve({
        exitCode: exit.code,
        signal: exit.signal,
        stdout: stdout.buffer(),
        stderr: stderr.buffer(),
        stdoutTruncated: stdout.total > cap,
        stderrTruncated: stderr.total > cap,
        durationMs: Date.now() - started,
        stoppedBy,
        sent,
      });
    };

    child.stdout.on("data", (c: Buffer) => stdout.push(c));
    child.stderr.on("data", (c: Buffer) => stderr.push(c));
    child.on("error", (e) => {
      clearTimeout(timeout);
      clearTimeout(killTimer);
      options.signal?.removeEventListener("abort", onAbort);
      reject(e);
    });
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      // Leftovers in the group (background jobs) must not outlive the step.
      if (child.pid !== undefined) killGroup(child.pid, "SIGKILL");
      drainTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish();
      }, DRAIN_MS);
    });
    child.on("close", () => finish());
  });
}
