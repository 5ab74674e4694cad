import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { ScriptConfig } from "@/lib/workflow/steps";
import { createScriptHandler, scriptHandler, type ScriptStepConfig } from "./script";
import { namespaceEmptied } from "@/server/sandbox/testing";
import { sendJson, startHttpServer, type LocalServer } from "@/server/testing/local-http";
import type { ActionContext } from "./types";
import { failureOf, makeActionContext } from "./testing";

const enabled = { scriptStepsEnabled: true, allowedPrivateHosts: [], forbiddenStepTypes: [] };
const handler = createScriptHandler({ killGraceMs: 500 });
const contexts: Array<{ cleanup(): Promise<void> }> = [];
function ctxFor(
  config: z.input<typeof ScriptConfig>,
  overrides: Partial<ActionContext<ScriptStepConfig>> = {},
) {
  const ctx = makeActionContext(ScriptConfig, config, { policy: enabled, ...overrides });
  contexts.push(ctx);
  return ctx;
}
afterEach(async () => {
  for (const c of contexts.splice(0)) await c.cleanup();
});

describe("script step", () => {
  it("is refused unless the workspace enabled script steps", async () => {
    const ctx = makeActionContext(ScriptConfig, { command: "echo hi" });
    contexts.push(ctx);
    const f = await failureOf(scriptHandler(ctx));
    expect(f.failureClass).toBe("user");
    expect(f.message).toMatch(/Script steps are disabled/);
  });

  it("runs in the scratch directory (/scratch in the sandbox) and reports the exit code, stdout and stderr", async () => {
    const ctx = ctxFor({
      command: 'pwd; echo "to err" >&2; exit 3',
      cwd: "work/dir",
      allowNonZeroExit: true,
    });
    const out = await handler(ctx);
    expect(out.data).toMatchObject({
      exitCode: 3,
      stdout: "/scratch/work/dir\n",
      stderr: "to err\n",
      stdoutTruncated: false,
      stderrTruncated: false,
    });
    expect((out.data as { durationMs: number }).durationMs).toBeGreaterThanOrEqual(0);
    const ok = await handler(ctxFor({ command: "true" }));
    expect(ok.data).toMatchObject({ exitCode: 0, stdout: "" });
  });

  it("fails (user, not retried) on a non-zero exit by default, with the exit code and stderr tail", async () => {
    const f = await failureOf(handler(ctxFor({ command: "echo nope >&2; exit 2" })));
    expect(f.failureClass).toBe("user");
    expect(f.message).toBe("Script exited with code 2: nope\n");
    expect(f.details).toMatchObject({ exitCode: 2, stderrTail: "nope\n" });
  });

  it("completes on a non-zero exit with allowNonZeroExit (or the old failOnNonZero: false)", async () => {
    for (const flag of [{ allowNonZeroExit: true }, { failOnNonZero: false }]) {
      const out = await handler(ctxFor({ command: "exit 4", ...flag }));
      expect(out.data).toMatchObject({ exitCode: 4 });
    }
  });

  it("caps each stream at 64 KiB and says so", async () => {
    const out = await handler(
      ctxFor({
        command: "head -c 100000 /dev/zero | tr '\\0' a; head -c 70000 /dev/zero | tr '\\0' b >&2",
      }),
    );
    const data = out.data as {
      stdout: string;
      stderr: string;
      stdoutTruncated: boolean;
      stderrTruncated: boolean;
    };
    expect(data.stdout.length).toBe(65536);
    expect(data.stderr.length).toBe(65536);
    expect(data.stdoutTruncated).toBe(true);
    expect(data.stderrTruncated).toBe(true);
  });

  it("scrubs the environment: only basics, the declared env and mapped secrets", async () => {
    process.env.SLUICE_TEST_PARENT_ONLY = "parent-value";
    try {
      const ctx = ctxFor(
        {
          command: "env | sort",
          env: { GREETING: "hello" },
          secrets: { API_TOKEN: "DEPLOY_TOKEN" },
        },
        { secrets: { DEPLOY_TOKEN: "tok-123456789" }, secretValues: ["tok-123456789"] },
      );
      const out = await handler(ctx);
      const stdout = (out.data as { stdout: string }).stdout;
      const names = stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split("=")[0]);
      expect(stdout).not.toContain("SLUICE_TEST_PARENT_ONLY");
      expect(stdout).not.toContain("parent-value");
      expect(stdout).toContain("GREETING=hello");
      // The mapped secret reached the script, and its value was redacted from the output.
      expect(stdout).toContain("API_TOKEN=[REDACTED]");
      expect(stdout).toContain("HOME=/scratch");
      expect(stdout).toContain("TMPDIR=/tmp");
      expect(names).not.toContain("NODE_OPTIONS");
      expect(names).not.toContain("DATABASE_URL");
      expect(names).not.toContain("SLUICE_SECRET");
    } finally {
      delete process.env.SLUICE_TEST_PARENT_ONLY;
    }
  });

  it("refuses to run when a mapped secret was not provided", async () => {
    const f = await failureOf(handler(ctxFor({ command: "true", secrets: { X: "MISSING_ONE" } })));
    expect(f.failureClass).toBe("user");
    expect(f.message).toMatch(/MISSING_ONE/);
  });

  it("redacts secrets from stdout and stderr in every encoding", async () => {
    const secret = "s3cr3t-value-42";
    const out = await handler(
      ctxFor(
        {
          command: 'echo "$S"; printf %s "$S" | base64; printf %s "$S" | xxd -p; echo "$S" >&2',
          env: { S: secret },
        },
        { secretValues: [secret] },
      ),
    );
    const text = JSON.stringify(out);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(Buffer.from(secret).toString("base64"));
    expect(text).not.toContain(Buffer.from(secret).toString("hex"));
    expect(text).toContain("[REDACTED]");
  });

  it("times out: SIGTERM to the process group, then SIGKILL when TERM is ignored", async () => {
    const ctx = ctxFor({
      command: `trap "" TERM; (trap "" TERM; exec sleep 30) & readlink /proc/self/ns/pid > ns; echo started; wait`,
      timeoutMs: 1000,
    });
    const started = Date.now();
    const f = await failureOf(handler(ctx));
    expect(f.failureClass).toBe("operational");
    expect(f.message).toBe(
      "Script timed out after 1 s and was stopped (SIGTERM, then SIGKILL after 0.5 s)",
    );
    expect(f.details).toMatchObject({
      stoppedBy: "timeout",
      sent: "SIGKILL",
      stdoutTail: "started\n",
    });
    expect(Date.now() - started).toBeLessThan(5000);
    // Everything in the sandbox (its pid namespace) is gone, the TERM-ignoring child too.
    const ns = await fs.readFile(path.join(await ctx.scratchDir(), "ns"), "utf8");
    expect(await namespaceEmptied(ns)).toBe(true);
  });

  it("stops a script that honours SIGTERM without needing SIGKILL", async () => {
    const f = await failureOf(handler(ctxFor({ command: "sleep 30", timeoutMs: 1000 })));
    expect(f.details).toMatchObject({ stoppedBy: "timeout", sent: "SIGTERM" });
  });

  it("is cancelled through the abort signal", async () => {
    const ctx = ctxFor({ command: "sleep 30" });
    setTimeout(() => ctx.abort.abort(), 200);
    const started = Date.now();
    const f = await failureOf(handler(ctx));
    expect(f.message).toMatch(/cancelled/);
    expect(f.details).toMatchObject({ stoppedBy: "cancel" });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("kills background jobs left behind when the script exits", async () => {
    const ctx = ctxFor({ command: "sleep 30 & readlink /proc/self/ns/pid > ns; echo done" });
    const started = Date.now();
    const out = await handler(ctx);
    expect(out.data).toMatchObject({ exitCode: 0, stdout: "done\n" });
    expect(Date.now() - started).toBeLessThan(5000);
    const ns = await fs.readFile(path.join(await ctx.scratchDir(), "ns"), "utf8");
    expect(await namespaceEmptied(ns)).toBe(true);
  });

  it("applies resource limits with ulimit", async () => {
    const out = await handler(
      ctxFor({ command: "ulimit -t; ulimit -f; ulimit -d; ulimit -c", timeoutMs: 60_000 }),
    );
    const [cpu, fsize, data, core] = (out.data as { stdout: string }).stdout.trim().split("\n");
    expect(Number(cpu)).toBe(66); // 60 s + 0.5 s grace (rounded up) + 5
    expect(Number(fsize)).toBe(1024 * 1024);
    expect(Number(data)).toBe(4 * 1024 * 1024);
    expect(core).toBe("0");
  });
});

describe("script step sandbox (bubblewrap)", () => {
  let api: LocalServer;
  let dataDir: string;
  beforeAll(async () => {
    api = await startHttpServer((_req, res) => sendJson(res, 200, { reached: true }));
    // A data folder as Sluice keeps one: database files and the generated master key (0600).
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "sluice-data-"));
    await fs.mkdir(path.join(dataDir, "pglite"));
    await fs.writeFile(path.join(dataDir, "pglite", "PG_VERSION"), "pglite-database-file\n");
    await fs.writeFile(path.join(dataDir, "master.key"), "master-key-value\n", { mode: 0o600 });
  });
  afterAll(async () => {
    await api?.close();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  it("cannot read the data folder, the master key, another run's scratch, the app's folder or environment", async () => {
    const other = ctxFor({ command: "echo other-run-secret > mine.txt" }, { runId: "run_other" });
    await handler(other);
    const otherScratch = await other.scratchDir();
    expect(await fs.readFile(path.join(otherScratch, "mine.txt"), "utf8")).toBe(
      "other-run-secret\n",
    );
    process.env.SLUICE_TEST_APP_ONLY = "app-env-value";
    try {
      const probes = [
        `cat ${dataDir}/master.key`,
        `cat ${dataDir}/pglite/PG_VERSION`,
        `cat ${otherScratch}/mine.txt`,
        `ls ${process.cwd()}/package.json`,
        // Every process the script can see, and their environments.
        `cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c -e app-env-value -e SLUICE_SECRET`,
      ];
      const out = await handler(
        ctxFor({ command: probes.join("; "), allowNonZeroExit: true }, { runId: "run_mine" }),
      );
      const data = out.data as { stdout: string; stderr: string };
      expect(data.stdout).toBe("0\n");
      for (const p of [`${dataDir}/master.key`, `${otherScratch}/mine.txt`, process.cwd()])
        expect(data.stderr).toContain(p);
      expect(data.stderr.match(/No such file or directory/g)).toHaveLength(4);
    } finally {
      delete process.env.SLUICE_TEST_APP_ONLY;
    }
  });

  it("runs as an unprivileged user (not uid 0) and writes its own scratch folder", async () => {
    const ctx = ctxFor({ command: "id -u; id -un; echo kept > result.txt" });
    const out = await handler(ctx);
    expect((out.data as { stdout: string }).stdout).toBe("65534\nnobody\n");
    expect(await fs.readFile(path.join(await ctx.scratchDir(), "result.txt"), "utf8")).toBe(
      "kept\n",
    );
  });

  it("has no network by default; the workspace's scriptNetwork: allowed lets it reach a local server", async () => {
    const get = `exec 3<>/dev/tcp/127.0.0.1/${api.port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`;
    const refused = await failureOf(handler(ctxFor({ command: get })));
    expect(refused.message).toMatch(/Connection refused|Network is unreachable/);
    expect(api.requests).toHaveLength(0);
    const out = await handler(
      ctxFor({ command: get }, { policy: { ...enabled, scriptNetwork: "allowed" } }),
    );
    expect((out.data as { stdout: string }).stdout).toContain('{"reached":true}');
    expect(api.requests).toHaveLength(1);
  });

  it("is refused, saying why, when bwrap is missing: never run unsandboxed", async () => {
    const missing = createScriptHandler({
      sandbox: { mode: "bwrap", bwrapPath: "/nonexistent/bwrap" },
    });
    const ctx = ctxFor({ command: "echo ran > ran.txt" });
    const f = await failureOf(missing(ctx));
    expect(f.failureClass).toBe("user");
    expect(f.message).toBe(
      "script steps need bubblewrap (bwrap): /nonexistent/bwrap not found or not executable; install the bubblewrap package (apt-get install bubblewrap)",
    );
    const ran = await fs.stat(path.join(await ctx.scratchDir(), "ran.txt")).catch(() => null);
    expect(ran).toBeNull();
  });

  it("runs unsandboxed only with the operator's explicit SLUICE_SCRIPT_SANDBOX=none", async () => {
    const unsandboxed = createScriptHandler({ sandbox: { mode: "none" } });
    const ctx = ctxFor({ command: 'echo "$HOME"; id -u' });
    const out = await unsandboxed(ctx);
    expect((out.data as { stdout: string }).stdout).toBe(
      `${await ctx.scratchDir()}\n${process.getuid?.()}\n`,
    );
  });
});
