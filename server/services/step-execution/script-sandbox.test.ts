/**
 * Script steps in real runs (embedded executor, PGlite and Postgres) are sandboxed by bubblewrap:
 * they cannot read the data folder, the master key, the app's environment or another run's
 * scratch folder; they write their own; they are not root; the network is off unless the
 * workspace allows it; without bwrap the step is refused, saying why.
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { env } from "@/env";
import { getRuntime } from "@/server/runtime";
import { updateWorkspacePolicies } from "@/server/services/settings/update-workspace-policies";
import { sendJson, startHttpServer, type LocalServer } from "@/server/testing/local-http";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";

let e: RunHarness;
let api: LocalServer;
const dataDir = path.resolve(env.SLUICE_DATA_DIR);
const markers = {
  key: path.join(dataDir, `master.key.sandbox-test-${process.pid}`),
  db: path.join(dataDir, "pglite", `sandbox-test-${process.pid}`),
};

async function policies(scriptNetwork: "none" | "allowed") {
  await updateWorkspacePolicies({
    ctx: e.ws.ctx("admin"),
    input: {
      scriptStepsEnabled: true,
      scriptNetwork,
      allowedPrivateHosts: [],
      forbiddenStepTypes: [],
    },
  });
}

function scriptWorkflow(name: string, command: string) {
  return e.workflow({
    schemaVersion: 1,
    name,
    steps: [{ id: "sh", type: "script", config: { command, allowNonZeroExit: true } }],
    output: "{{ steps.sh.output.data }}",
  });
}

type ScriptData = { exitCode: number; stdout: string; stderr: string };

beforeAll(async () => {
  e = await startRunHarness("script-sandbox");
  api = await startHttpServer((_req, res) => sendJson(res, 200, { reached: "host" }));
  // What the data folder holds: the master key (0600) and the database's files.
  await fs.mkdir(path.dirname(markers.db), { recursive: true });
  await fs.writeFile(markers.key, "master-key-marker\n", { mode: 0o600 });
  await fs.writeFile(markers.db, "database-file-marker\n");
  await policies("none");
});
afterAll(async () => {
  await api?.close();
  await e?.close();
  await fs.rm(markers.key, { force: true });
  await fs.rm(markers.db, { force: true });
});

describe("script steps in runs are sandboxed", () => {
  it("cannot read the data folder, the master key, the app's environment or another run's scratch; writes its own; is not root", async () => {
    // Another run, still running, with a file in its scratch folder.
    const holder = await scriptWorkflow(
      "Holder",
      'echo other-run-marker > mine.txt; while [ ! -e "$HOME/stop" ]; do sleep 0.05; done',
    );
    const holderRun = await e.start(holder);
    const holderScratch = path.join(os.tmpdir(), "sluice-runs", holderRun);
    await e.h.until(
      () =>
        fs
          .readFile(path.join(holderScratch, "mine.txt"), "utf8")
          .then((t) => t === "other-run-marker\n")
          .catch(() => false),
      "the other run to write its scratch folder",
      20_000,
    );

    const probe = await scriptWorkflow(
      "Probe",
      [
        `cat ${markers.key}`,
        `cat ${markers.db}`,
        `cat ${holderScratch}/mine.txt`,
        `ls ${process.cwd()}/package.json`,
        `cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c SLUICE_SECRET`,
        "id -u",
        "echo own > own.txt && cat own.txt",
      ].join("; "),
    );
    const run = await e.waitFor(await e.start(probe), ["completed", "failed"]);
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    const out = run.output as ScriptData;
    expect(out.stdout).toBe("0\n65534\nown\n");
    expect(out.stderr.match(/No such file or directory/g)).toHaveLength(4);
    for (const p of [markers.key, markers.db, `${holderScratch}/mine.txt`])
      expect(out.stderr).toContain(p);

    await fs.writeFile(path.join(holderScratch, "stop"), "");
    expect((await e.waitFor(holderRun, ["completed", "failed"])).status).toBe("completed");
  });

  it("has no network unless the workspace's scriptNetwork policy allows it", async () => {
    const wf = await scriptWorkflow(
      "Network",
      `exec 3<>/dev/tcp/127.0.0.1/${api.port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`,
    );
    const refused = await e.waitFor(await e.start(wf), ["completed", "failed"]);
    expect((refused.output as ScriptData).stderr).toMatch(/Connection refused|unreachable/);
    expect(api.requests).toHaveLength(0);

    await policies("allowed");
    try {
      const reached = await e.waitFor(await e.start(wf), ["completed", "failed"]);
      expect((reached.output as ScriptData).stdout).toContain('{"reached":"host"}');
      expect(api.requests).toHaveLength(1);
    } finally {
      await policies("none");
    }
  });

  it("fails the step with the reason when bwrap is missing, and never runs the script", async () => {
    const config = getRuntime().config;
    const before = config.scriptSandbox;
    config.scriptSandbox = { mode: "bwrap", bwrapPath: "/nonexistent/bwrap" };
    try {
      const wf = await scriptWorkflow("No bwrap", "echo ran");
      const run = await e.waitFor(await e.start(wf), ["completed", "failed"]);
      expect(run.status).toBe("failed");
      const [step] = await e.steps(run.id);
      expect(step!.failureClass).toBe("user");
      expect(step!.error).toMatchObject({
        message:
          "script steps need bubblewrap (bwrap): /nonexistent/bwrap not found or not executable; install the bubblewrap package (apt-get install bubblewrap)",
      });
    } finally {
      config.scriptSandbox = before;
    }
  });
});
