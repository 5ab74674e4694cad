/**
 * The bubblewrap sandbox through the script runner, with the real bwrap of this machine (CI
 * installs the bubblewrap package): what a script can see, write and reach, and who it is.
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendJson, startHttpServer, type LocalServer } from "@/server/testing/local-http";
import type { Logger } from "@/lib/log";
import {
  probeSandbox,
  reportScriptSandbox,
  sandboxCommand,
  SANDBOX_UID,
  type SandboxSpec,
} from "./bwrap";
import { runProcess, runScript, SANDBOX_PATH } from "./script-runner";
import { namespaceEmptied } from "./testing";

let bwrap: string;
let scratch: string;
let api: LocalServer;

beforeAll(async () => {
  const probe = await probeSandbox(undefined, SANDBOX_PATH);
  if (!probe.ok) throw new Error(`these tests need a working bwrap: ${probe.reason}`);
  bwrap = probe.bwrap;
  scratch = await fs.mkdtemp(path.join(os.tmpdir(), "sluice-sandbox-test-"));
  if (process.getuid?.() === 0) await fs.chown(scratch, SANDBOX_UID, SANDBOX_UID);
  api = await startHttpServer((_req, res) => sendJson(res, 200, { hello: "from the host" }));
});
afterAll(async () => {
  await api?.close();
  if (scratch) await fs.rm(scratch, { recursive: true, force: true });
});

function spec(over: Partial<SandboxSpec> = {}): SandboxSpec {
  return {
    bwrap,
    mounts: [{ host: scratch, inside: "/scratch", writable: true }],
    cwd: "/scratch",
    network: false,
    ...over,
  };
}

async function run(command: string, over: Partial<SandboxSpec> = {}, timeoutMs = 20_000) {
  const r = await runScript({
    command,
    cwd: "/",
    env: { PATH: SANDBOX_PATH, HOME: "/scratch" },
    timeoutMs,
    killGraceMs: 500,
    sandbox: spec(over),
  });
  return { ...r, out: r.stdout.toString("utf8"), err: r.stderr.toString("utf8") };
}

describe("script sandbox (bwrap)", () => {
  it("runs as uid/gid 65534 with no capabilities, never root", async () => {
    const r = await run("id -u; id -g; grep CapEff /proc/self/status");
    expect(r.exitCode, r.err).toBe(0);
    expect(r.out).toBe("65534\n65534\nCapEff:\t0000000000000000\n");
  });

  it("writes its scratch folder; the system folders are read-only; /tmp is its own", async () => {
    // Per process: the PGlite and Postgres projects run this file at the same time.
    const marker = `sluice-host-tmp-marker-${process.pid}`;
    await fs.writeFile(path.join(os.tmpdir(), marker), "host");
    const r = await run(
      "echo made > /scratch/made.txt && echo wrote; touch /usr/sluice-x 2>&1; touch /etc/sluice-x 2>&1; ls -A /tmp; echo private > /tmp/t && cat /tmp/t",
    );
    expect(r.out).toContain("wrote\n");
    expect(r.out).toMatch(/\/usr\/sluice-x': Read-only file system/);
    expect(r.out).toMatch(/\/etc\/sluice-x': Read-only file system/);
    expect(r.out).not.toContain(marker);
    expect(r.out).toContain("private\n");
    expect(await fs.readFile(path.join(scratch, "made.txt"), "utf8")).toBe("made\n");
    await fs.rm(path.join(os.tmpdir(), marker), { force: true });
  });

  it("sees only the system folders: not the app's folder, the host's /tmp or its processes", async () => {
    const r = await run(
      `ls /; test -e ${JSON.stringify(process.cwd())} && echo app-visible; test -e /proc/${process.pid} && echo host-pid-visible; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c SLUICE_SECRET`,
    );
    const top = r.out.split("\n");
    expect(top).not.toContain("work");
    expect(top).not.toContain("root");
    expect(top).not.toContain("home");
    expect(r.out).not.toContain("app-visible");
    expect(r.out).not.toContain("host-pid-visible");
    // No process it can see carries the app's environment (vitest sets SLUICE_SECRET).
    expect(r.out.trim().split("\n").pop()).toBe("0");
  });

  it("covers a hidden path that lies inside a system folder it shows (a data folder under /etc)", async () => {
    const hidden = `/etc/sluice-sandbox-hidden-${process.pid}`;
    await fs.mkdir(hidden, { recursive: true });
    await fs.writeFile(path.join(hidden, "master.key"), "the-master-key");
    try {
      const shown = await run(`cat ${hidden}/master.key`);
      expect(shown.out).toBe("the-master-key"); // world-readable and not hidden: visible
      const masked = await run(`ls -A ${hidden}; cat ${hidden}/master.key`, {
        hiddenPaths: [hidden],
      });
      expect(masked.out).toBe("");
      expect(masked.err).toMatch(/No such file or directory/);
    } finally {
      await fs.rm(hidden, { recursive: true, force: true });
    }
  });

  it("has no network unless allowed: a local HTTP server is refused, then reached", async () => {
    const get = `exec 3<>/dev/tcp/127.0.0.1/${api.port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`;
    const refused = await run(get);
    expect(refused.exitCode).not.toBe(0);
    expect(refused.err).toMatch(/Connection refused|Network is unreachable|Cannot assign/);
    expect(api.requests).toHaveLength(0);
    const allowed = await run(get, { network: true });
    expect(allowed.exitCode, allowed.err).toBe(0);
    expect(allowed.out).toContain('{"hello":"from the host"}');
    expect(api.requests).toHaveLength(1);
  });

  // Tests run as root; this is the other branch, Sluice as an ordinary user (uid 12345 here).
  it.runIf(process.getuid?.() === 0)(
    "as a non-root app user: an unprivileged user namespace, 65534 inside, no nested user namespaces",
    async () => {
      const own = await fs.mkdtemp(path.join(os.tmpdir(), "sluice-sandbox-user-"));
      await fs.chown(own, 12345, 12345);
      try {
        const { file, args } = sandboxCommand(
          spec({ mounts: [{ host: own, inside: "/scratch", writable: true }] }),
          ["bash", "-c", "id -u; echo w > f && cat f; unshare -U true || echo no-userns"],
          false,
        );
        const r = await runProcess(
          "setpriv",
          ["--reuid=12345", "--regid=12345", "--clear-groups", "--", file, ...args],
          { cwd: "/", env: { PATH: SANDBOX_PATH }, timeoutMs: 20_000 },
        );
        expect(r.stdout.toString("utf8")).toBe("65534\nw\nno-userns\n");
        // What the script wrote belongs to the app's user on the host.
        expect((await fs.stat(path.join(own, "f"))).uid).toBe(12345);
      } finally {
        await fs.rm(own, { recursive: true, force: true });
      }
    },
  );

  it("delivers SIGTERM to the script (which may clean up) and ends the whole sandbox after", async () => {
    const r = await run(
      `trap 'echo term-seen; exit 0' TERM; (trap "" TERM; exec sleep 30) & readlink /proc/self/ns/pid > ns; echo started; while true; do sleep 0.1; done`,
      {},
      1000,
    );
    expect(r.stoppedBy).toBe("timeout");
    expect(r.sent).toBe("SIGTERM");
    expect(r.out).toBe("started\nterm-seen\n");
    // The TERM-ignoring child died with the sandbox's pid namespace.
    const ns = await fs.readFile(path.join(scratch, "ns"), "utf8");
    expect(await namespaceEmptied(ns)).toBe(true);
  });
});

describe("probeSandbox", () => {
  it("names what is missing: a bwrap path that does not exist, or no bwrap on PATH", async () => {
    expect(await probeSandbox("/nonexistent/bwrap", SANDBOX_PATH)).toEqual({
      ok: false,
      reason:
        "script steps need bubblewrap (bwrap): /nonexistent/bwrap not found or not executable; install the bubblewrap package (apt-get install bubblewrap)",
    });
    const empty = await fs.mkdtemp(path.join(os.tmpdir(), "sluice-empty-path-"));
    try {
      expect(await probeSandbox(undefined, empty)).toEqual({
        ok: false,
        reason: `script steps need bubblewrap (bwrap): not found on PATH (${empty}); install the bubblewrap package (apt-get install bubblewrap)`,
      });
    } finally {
      await fs.rm(empty, { recursive: true, force: true });
    }
  });

  it("reports a bwrap that cannot create its namespaces with bwrap's own words", async () => {
    // A stand-in for bwrap in a container that refuses namespaces: it fails the way bwrap does.
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "sluice-refused-bwrap-"));
    const refused = path.join(dir, "bwrap");
    await fs.writeFile(
      refused,
      "#!/bin/sh\necho 'bwrap: Creating new namespace failed: Operation not permitted' >&2\nexit 1\n",
      { mode: 0o755 },
    );
    try {
      const probe = await probeSandbox(refused, SANDBOX_PATH);
      expect(probe.ok).toBe(false);
      expect(!probe.ok && probe.reason).toMatch(
        /^script steps need bubblewrap \(bwrap\), but it cannot build its sandbox on this machine: bwrap: Creating new namespace failed: Operation not permitted\. It must be allowed to create namespaces: /,
      );
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it("finds a working bwrap on PATH", async () => {
    expect(await probeSandbox(undefined, SANDBOX_PATH)).toEqual({ ok: true, bwrap });
  });
});

describe("reportScriptSandbox (start-up)", () => {
  function capture() {
    const lines: Array<{ level: string; msg: string }> = [];
    const log: Logger = {
      debug: (msg) => lines.push({ level: "debug", msg }),
      info: (msg) => lines.push({ level: "info", msg }),
      warn: (msg) => lines.push({ level: "warn", msg }),
      error: (msg) => lines.push({ level: "error", msg }),
      child: () => log,
    };
    return { log, lines };
  }

  it("warns when scripts run unsandboxed or will be refused, and says when the sandbox works", async () => {
    const none = capture();
    await reportScriptSandbox({ mode: "none" }, none.log, SANDBOX_PATH);
    expect(none.lines).toEqual([
      { level: "warn", msg: expect.stringMatching(/^SLUICE_SCRIPT_SANDBOX=none: .*UNSANDBOXED/) },
    ]);
    const missing = capture();
    await reportScriptSandbox(
      { mode: "bwrap", bwrapPath: "/nonexistent/bwrap" },
      missing.log,
      SANDBOX_PATH,
    );
    expect(missing.lines).toEqual([
      {
        level: "warn",
        msg: expect.stringMatching(
          /^script steps will be refused: .*\/nonexistent\/bwrap not found/,
        ),
      },
    ]);
    const ok = capture();
    await reportScriptSandbox({ mode: "bwrap" }, ok.log, SANDBOX_PATH);
    expect(ok.lines).toEqual([{ level: "info", msg: "script steps run in a bubblewrap sandbox" }]);
  });
});
