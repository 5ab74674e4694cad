import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runs } from "@/db/schema";
import { ValidationError } from "@/server/errors";
import { decideApproval } from "@/server/services/approvals/decide-approval";
import { createRun } from "@/server/services/runs/create-run";
import { getRun } from "@/server/services/runs/get-run";
import { rerunRun } from "@/server/services/runs/rerun-run";
import { updateWorkspacePolicies } from "@/server/services/settings/update-workspace-policies";
import { createGitFixture, type GitFixture } from "@/server/testing/git-fixture";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";

/*
 * Repository context (SPEC §3) end to end: a bare repository made here, with commits pushed to
 * `main` while runs are under way.
 *
 *   origin.git (bare)  ◄── push ──  work (clone)
 *        │ fetch (pin before step 1)
 *        ▼
 *   workspace cache ── clone --shared ──► <scratch>/checkouts/<step>@<attempt>  (script cwd)
 */

let e: RunHarness;
let repo: GitFixture;
const shas: string[] = [];

function commit(version: string): string {
  const sha = repo.commit("VERSION", `${version}\n`);
  shas.push(sha);
  return sha;
}

const url = () => `file://${repo.origin}`;

function repoWorkflow(
  steps: Record<string, unknown>[],
  repository: Record<string, unknown> = { url: url(), ref: "main" },
  extra: Record<string, unknown> = {},
) {
  return { schemaVersion: 1, name: "Repo", repository, steps, ...extra };
}

const show = (config: Record<string, unknown> = {}) => ({
  id: "show",
  type: "script",
  config: { command: "cat VERSION; git rev-parse HEAD", ...config },
});

async function scriptsOn(allowedPrivateHosts: string[] = []) {
  await updateWorkspacePolicies({
    ctx: e.ws.ctx("admin"),
    input: { scriptStepsEnabled: true, allowedPrivateHosts, forbiddenStepTypes: [] },
  });
}

beforeAll(async () => {
  e = await startRunHarness("repository");
  repo = createGitFixture("sluice-repo-test-");
  commit("v1");
  repo.git(repo.work, "tag", "v1");
  repo.git(repo.work, "push", "-q", "origin", "v1");
  await scriptsOn();
});
afterAll(async () => {
  await e?.close();
  repo?.remove();
});

describe("repository context", () => {
  it("pins main before step 1; a push while the run waits changes nothing; a rerun reuses the SHA", async () => {
    const wf = await e.workflow(
      repoWorkflow(
        [{ id: "ask", type: "approval", config: { prompt: "Go?" } }, show()],
        undefined,
        { edges: [{ from: "ask", port: "approved", to: "show" }] },
      ),
    );
    const runId = await e.start(wf);
    const approval = await e.pendingApproval(runId);
    const [waiting] = await e.db.db.select().from(runs).where(eq(runs.id, runId));
    expect(waiting).toMatchObject({ repositoryRef: "main", repositorySha: shas[0] });

    const second = commit("v2");
    await decideApproval({
      ctx: e.ws.ctx("approver"),
      input: { approvalId: approval.id, approve: true },
      via: "ui",
    });
    const done = await e.waitFor(runId, ["completed", "failed"]);
    expect(done.status, JSON.stringify(done.error)).toBe("completed");
    const out = (await e.steps(runId)).find((s) => s.stepId === "show")!.output as {
      data: { stdout: string };
      meta: Record<string, unknown>;
    };
    expect(out.data.stdout).toBe(`v1\n${shas[0]}\n`);
    expect(out.meta.checkout).toEqual({ sha: shas[0], ref: "main", writable: false });
    expect(await e.events(runId)).toContain("run.repository_pinned");

    // The run APIs return the pin.
    const view = await getRun({ ctx: e.ws.ctx("viewer"), input: { runId } });
    expect(view.repository).toEqual({ url: url(), ref: "main", sha: shas[0] });

    // A rerun from the script step sees commit 1 again although main moved on.
    const rerun = await rerunRun({
      ctx: e.ws.ctx("editor"),
      input: { runId, fromStepId: "show" },
    });
    const again = await e.waitFor(rerun.runId, ["completed", "failed"]);
    expect(again.status, JSON.stringify(again.error)).toBe("completed");
    expect(again.repositorySha).toBe(shas[0]);
    const rerunOut = (await e.steps(rerun.runId)).find((s) => s.stepId === "show")!.output as {
      data: { stdout: string };
    };
    expect(rerunOut.data.stdout).toBe(`v1\n${shas[0]}\n`);

    // A new run pins the new head.
    const fresh = await e.waitFor(await e.start(await e.workflow(repoWorkflow([show()]))), [
      "completed",
      "failed",
    ]);
    expect(fresh.repositorySha).toBe(second);
  });

  it("fails fast, before step 1, when the ref cannot be resolved", async () => {
    const wf = await e.workflow(repoWorkflow([show()], { url: url(), ref: "no-such-branch" }));
    const run = await e.waitFor(await e.start(wf), ["completed", "failed"]);
    expect(run.status).toBe("failed");
    expect(run.error).toMatchObject({
      code: "repository_unresolved",
      class: "user",
      message: `repository ref 'no-such-branch' not found in ${url()}`,
    });
    expect(run.repositorySha).toBeNull();
    expect(await e.steps(run.id)).toEqual([]);
  });

  it("a child run whose ref cannot be resolved fails its parent's subworkflow step", async () => {
    const child = await e.workflow(repoWorkflow([show()], { url: url(), ref: "gone" }));
    const parent = await e.workflow({
      schemaVersion: 1,
      name: "Parent",
      steps: [{ id: "sub", type: "subworkflow", config: { workflow: child } }],
    });
    const run = await e.waitFor(await e.start(parent), ["completed", "failed"]);
    expect(run.status).toBe("failed");
    const sub = (await e.steps(run.id)).find((s) => s.stepId === "sub")!;
    expect(JSON.stringify(sub.error)).toContain(`repository ref 'gone' not found in ${url()}`);
  });

  it("checks out read-only unless the step sets writable: true", async () => {
    const wf = await e.workflow(
      repoWorkflow(
        [
          show({ command: "echo changed > VERSION", allowNonZeroExit: true }),
          {
            id: "create",
            type: "script",
            config: { command: "touch NEW", allowNonZeroExit: true },
          },
          {
            id: "rw",
            type: "script",
            config: {
              command: "echo changed > VERSION && touch NEW && cat VERSION",
              writable: true,
            },
          },
          { id: "after", type: "script", config: { command: "cat VERSION; ls" } },
        ],
        { url: url(), ref: "v1" },
      ),
    );
    const run = await e.waitFor(await e.start(wf), ["completed", "failed"]);
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    const data = Object.fromEntries(
      (await e.steps(run.id)).map((s) => [
        s.stepId,
        (s.output as { data: { exitCode: number; stdout: string; stderr: string } }).data,
      ]),
    );
    expect(data.show!.exitCode).not.toBe(0);
    // A read-only mount in the sandbox: its owner (the script) cannot chmod it writable either.
    expect(data.show!.stderr).toMatch(/Read-only file system/);
    expect(data.create!.exitCode).not.toBe(0);
    expect(data.create!.stderr).toMatch(/Read-only file system/);
    expect(data.rw).toMatchObject({ exitCode: 0, stdout: "changed\n" });
    // Every step gets its own fresh checkout: the writable step's changes are gone.
    expect(data.after!.stdout).toBe("v1\nVERSION\n");
  });

  it("lets manual runs override the ref; other triggers and workflows without a repository refuse", async () => {
    const wf = await e.workflow(repoWorkflow([show()]));
    const runId = await e.start(wf, {}, e.ws, { repository: { ref: shas[0] } });
    const run = await e.waitFor(runId, ["completed", "failed"]);
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    expect(run).toMatchObject({ repositoryRef: shas[0], repositorySha: shas[0] });

    await expect(
      e.db.db.transaction((tx) =>
        createRun(tx, e.ws.ctx("editor"), {
          workspaceId: e.ws.workspaceId,
          workflowId: wf,
          input: {},
          trigger: { type: "schedule", id: "t1" },
          initiator: { type: "schedule" },
          repositoryOverride: { ref: "v1" },
        }),
      ),
    ).rejects.toThrow(/Only manual runs may override the repository/);

    const plain = await e.workflow({ schemaVersion: 1, name: "Plain", steps: [show()] });
    await expect(e.start(plain, {}, e.ws, { repository: { ref: "main" } })).rejects.toThrow(
      /declares no repository/,
    );
    const bad = await e
      .start(wf, {}, e.ws, { repository: { ref: "--upload-pack=touch" } })
      .catch((err: unknown) => err);
    expect(bad).toBeInstanceOf(ValidationError);
    expect(JSON.stringify((bad as ValidationError).details ?? bad)).toMatch(/repository/);
  });

  it("refuses transport helpers and option injection on save, and private hosts when the run starts", async () => {
    for (const [bad, message] of [
      ["ext::sh -c touch% /tmp/pwned", /transport helpers/],
      ["-oProxyCommand=touch /tmp/pwned", /must not start with "-"/],
      ["ssh://-oProxyCommand=x/repo", /must not start with "-"/],
      ["http://example.com/repo.git", /use https/],
    ] as const) {
      // Publishing refuses it (a draft may hold problems; they are listed on save).
      await expect(e.workflow(repoWorkflow([show()], { url: bad, ref: "main" }))).rejects.toThrow(
        message,
      );
    }

    const privateHost = await e.workflow(
      repoWorkflow([show()], { url: "https://127.0.0.1:9/repo.git", ref: "main" }),
    );
    const refused = await e.waitFor(await e.start(privateHost), ["completed", "failed"]);
    expect(refused.error).toMatchObject({ code: "repository_unresolved" });
    expect(String(refused.error!.message)).toMatch(/Refused to connect to 127\.0\.0\.1.*loopback/);

    // Allowed by the workspace policy (as for http steps): git gets to try, and says why it failed.
    await scriptsOn(["127.0.0.1"]);
    try {
      const allowed = await e.waitFor(await e.start(privateHost), ["completed", "failed"]);
      expect(String(allowed.error!.message)).toMatch(/^Could not fetch https:\/\/127\.0\.0\.1:9/);
    } finally {
      await scriptsOn();
    }
  });
});
