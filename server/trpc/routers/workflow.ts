import {
  CompareVersionsInput,
  CreateWorkflowInput,
  DeleteWorkflowInput,
  DuplicateWorkflowInput,
  ExportWorkflowInput,
  GetWorkflowInput,
  ImportWorkflowInput,
  ListWorkflowsInput,
  PublishWorkflowInput,
  RollbackInput,
  SaveDraftInput,
  SaveLayoutInput,
  UpdateWorkflowInput,
  VersionRef,
  WorkflowRef,
} from "@/lib/schemas/workflows";
import { STARTERS } from "@/lib/starters";
import { PreviewTestStepInput, TestStepInput } from "@/lib/schemas/test-runs";
import { previewTestStep } from "../../services/runs/preview-test-step";
import { testStep } from "../../services/runs/test-step";
import { compareVersions } from "../../services/workflows/compare-versions";
import { createWorkflow } from "../../services/workflows/create-workflow";
import { deleteWorkflow } from "../../services/workflows/delete-workflow";
import { duplicateWorkflow } from "../../services/workflows/duplicate-workflow";
import { exportWorkflow } from "../../services/workflows/export-workflow";
import { getVersion } from "../../services/workflows/get-version";
import { getWorkflow } from "../../services/workflows/get-workflow";
import { importWorkflow } from "../../services/workflows/import-workflow";
import { listVersions } from "../../services/workflows/list-versions";
import { listWorkflows } from "../../services/workflows/list-workflows";
import { publishWorkflow } from "../../services/workflows/publish-workflow";
import { rollbackWorkflow } from "../../services/workflows/rollback-workflow";
import { saveDraft } from "../../services/workflows/save-draft";
import { saveLayout } from "../../services/workflows/save-layout";
import { updateWorkflow } from "../../services/workflows/update-workflow";
import { roleProcedure, router } from "../init";

const viewer = roleProcedure("viewer");
const editor = roleProcedure("editor");

export const workflowRouter = router({
  starters: viewer.query(() =>
    STARTERS.map(({ id, name, description }) => ({ id, name, description })),
  ),
  list: viewer
    .input(ListWorkflowsInput.optional())
    .query(({ ctx, input }) => listWorkflows({ ctx: ctx.svc, input })),
  get: viewer
    .input(GetWorkflowInput)
    .query(({ ctx, input }) => getWorkflow({ ctx: ctx.svc, input })),
  /** "Test this step" / "Test up to here" (docs/runs.md "Testing while building"). */
  testStep: editor
    .input(TestStepInput)
    .mutation(({ ctx, input }) => testStep({ ctx: ctx.svc, input })),
  // A read, but sent as a POST: the draft it carries can outgrow a GET's URL.
  previewTestStep: editor
    .input(PreviewTestStepInput)
    .mutation(({ ctx, input }) => previewTestStep({ ctx: ctx.svc, input })),
  create: editor
    .input(CreateWorkflowInput)
    .mutation(({ ctx, input }) => createWorkflow({ ctx: ctx.svc, input })),
  update: editor.input(UpdateWorkflowInput).mutation(async ({ ctx, input }) => {
    const wf = await updateWorkflow({ ctx: ctx.svc, input });
    return {
      id: wf.id,
      name: wf.name,
      slug: wf.slug,
      tags: wf.tags,
      isEnabled: wf.isEnabled,
      description: wf.description,
    };
  }),
  duplicate: editor
    .input(DuplicateWorkflowInput)
    .mutation(({ ctx, input }) => duplicateWorkflow({ ctx: ctx.svc, input })),
  delete: editor
    .input(DeleteWorkflowInput)
    .mutation(({ ctx, input }) => deleteWorkflow({ ctx: ctx.svc, input })),
  saveDraft: editor
    .input(SaveDraftInput)
    .mutation(({ ctx, input }) => saveDraft({ ctx: ctx.svc, input })),
  saveLayout: editor
    .input(SaveLayoutInput)
    .mutation(({ ctx, input }) => saveLayout({ ctx: ctx.svc, input })),
  publish: editor
    .input(PublishWorkflowInput)
    .mutation(({ ctx, input }) => publishWorkflow({ ctx: ctx.svc, input })),
  versions: viewer
    .input(WorkflowRef)
    .query(({ ctx, input }) => listVersions({ ctx: ctx.svc, input })),
  version: viewer.input(VersionRef).query(({ ctx, input }) => getVersion({ ctx: ctx.svc, input })),
  compare: viewer
    .input(CompareVersionsInput)
    .query(({ ctx, input }) => compareVersions({ ctx: ctx.svc, input })),
  rollback: editor
    .input(RollbackInput)
    .mutation(({ ctx, input }) => rollbackWorkflow({ ctx: ctx.svc, input })),
  import: editor
    .input(ImportWorkflowInput)
    .mutation(({ ctx, input }) => importWorkflow({ ctx: ctx.svc, input })),
  export: viewer
    .input(ExportWorkflowInput)
    .query(({ ctx, input }) => exportWorkflow({ ctx: ctx.svc, input })),
});
