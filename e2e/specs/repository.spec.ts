import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { OWNER_STATE } from "../fixtures/users";
import { publishWorkflow, trpcQuery } from "../fixtures/workflows";
import { GraphEditorPage } from "../pages/graph-editor-page";
import { RunForm, RunPage } from "../pages/run-pages";

test.use({ storageState: OWNER_STATE });

/** A bare repository with tag v1 on its first commit and main one commit ahead. */
let dir = "";
let url = "";
const shas: string[] = [];
test.beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-e2e-repo-"));
  const git = (cwd: string, ...args: string[]) =>
    execFileSync("git", args, {
      cwd,
      encoding: "utf8",
      env: {
        ...process.env,
        HOME: dir,
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_AUTHOR_NAME: "T",
        GIT_AUTHOR_EMAIL: "t@example.com",
        GIT_COMMITTER_NAME: "T",
        GIT_COMMITTER_EMAIL: "t@example.com",
      },
    }).trim();
  const origin = path.join(dir, "origin.git");
  const work = path.join(dir, "work");
  git(dir, "init", "-q", "--bare", "-b", "main", origin);
  git(dir, "init", "-q", "-b", "main", work);
  for (const v of ["v1", "v2"]) {
    fs.writeFileSync(path.join(work, "VERSION"), v);
    git(work, "add", "VERSION");
    git(work, "commit", "-q", "-m", v);
    shas.push(git(work, "rev-parse", "HEAD"));
    if (v === "v1") git(work, "tag", "v1");
  }
  git(work, "push", "-q", origin, "main", "v1");
  url = `file://${origin}`;
});
test.afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test("a manual run picks another ref; the run page shows the commit it was pinned to", async ({
  page,
  request,
}) => {
  const workflowId = await publishWorkflow(request, {
    schemaVersion: 1,
    name: `Repo ${Date.now().toString(36)}`,
    repository: { url, ref: "main" },
    steps: [{ id: "done", type: "transform", config: { value: "ok" } }],
  });
  await page.goto(`/workflows/${workflowId}`);
  const form = new RunForm(page);
  await form.open();
  await expect(form.repositoryRef()).toHaveValue("main");
  await form.repositoryRef().fill("-x");
  await form.submit();
  await expect(form.dialog().getByText(/must not start with "-"/)).toBeVisible();
  await form.repositoryRef().fill("v1");
  await form.submit();
  await expect(page).toHaveURL(/\/runs\/run_/);
  const run = new RunPage(page);
  await run.expectStatus("completed");
  await expect(run.repository(url)).toContainText(`repository v1 @ ${shas[0]!.slice(0, 12)}`);
});

test("the workflow panel edits the repository; a transport-helper URL is named at its field", async ({
  page,
  request,
}) => {
  const workflowId = await publishWorkflow(request, {
    schemaVersion: 1,
    name: `Repo panel ${Date.now().toString(36)}`,
    steps: [{ id: "done", type: "transform", config: { value: "ok" } }],
  });
  const editor = new GraphEditorPage(page);
  await editor.goto(workflowId);
  const panel = editor.inspector().getByRole("region", { name: "Repository" });
  await panel.getByLabel("Repository URL").fill("ext::sh -c touch% /tmp/pwned");
  await panel.getByLabel("Repository ref").fill("main");
  await expect(panel.getByText(/transport helpers \("ext::"\) are not allowed/)).toBeVisible();
  await panel.getByLabel("Repository URL").fill(url);
  await expect(panel.getByText(/transport helpers/)).toHaveCount(0);
  await editor.expectSaved();
  const wf = await trpcQuery<{ draft: { repository?: unknown } }>(request, "workflow.get", {
    workflowId,
  });
  expect(wf.draft.repository).toEqual({ url, ref: "main" });
});
