import { z } from "zod";
import {
  CreateWorkflowInput,
  DefinitionFormat,
  ImportWorkflowInput,
  MAX_DEFINITION_BODY_BYTES,
  PublishWorkflowInput,
  RollbackInput,
  SaveDraftInput,
  Tag,
  UpdateWorkflowInput,
  WORKFLOW_STATUS_FILTERS,
} from "@/lib/schemas/workflows";
import { SyncWorkflowsInput } from "@/server/services/workflows/sync-workflows";
import { defineOperation } from "../operation";
import {
  Id,
  IdParams,
  JsonObject,
  Limit,
  pageOf,
  QueryBool,
  VersionSummary,
  WorkflowSummary,
} from "./common";

const tag = "Workflows";

export const listWorkflowsOp = defineOperation({
  method: "GET",
  path: "/workflows",
  operationId: "listWorkflows",
  summary: "List workflows",
  description: "Newest change first; the same search and filters as the workflows page.",
  tag,
  minRole: "viewer",
  query: z.object({
    search: z.string().trim().max(200).optional(),
    tag: Tag.optional(),
    enabled: QueryBool,
    status: z.enum(WORKFLOW_STATUS_FILTERS).optional(),
    limit: Limit(200),
    cursor: z.string().max(200).optional(),
  }),
  responses: { 200: { description: "One page", schema: pageOf(WorkflowSummary) } },
});

export const createWorkflowOp = defineOperation({
  method: "POST",
  path: "/workflows",
  operationId: "createWorkflow",
  summary: "Create a workflow",
  description: "From a built-in starter (blank by default); it is published as 1.0.0 at once.",
  tag,
  minRole: "editor",
  body: CreateWorkflowInput.strict(),
  responses: {
    201: {
      description: "Created",
      schema: z.object({ id: z.string(), slug: z.string(), name: z.string(), version: z.string() }),
    },
  },
  errors: [409],
});

export const getWorkflowOp = defineOperation({
  method: "GET",
  path: "/workflows/{id}",
  operationId: "getWorkflow",
  summary: "Get a workflow by id or slug",
  description: "With its draft, the draft's validation issues and the current version.",
  tag,
  minRole: "viewer",
  params: z.object({ id: Id.meta({ description: "A workflow id (wf_…) or its slug" }) }),
  responses: { 200: { description: "The workflow", schema: JsonObject } },
});

export const updateWorkflowOp = defineOperation({
  method: "PATCH",
  path: "/workflows/{id}",
  operationId: "updateWorkflow",
  summary: "Update a workflow's metadata",
  description: "Name, description, slug, tags, enabled. The definition changes through the draft.",
  tag,
  minRole: "editor",
  params: IdParams,
  body: UpdateWorkflowInput.omit({ workflowId: true }).strict(),
  responses: { 200: { description: "The updated metadata", schema: JsonObject } },
  errors: [409],
});

export const deleteWorkflowOp = defineOperation({
  method: "DELETE",
  path: "/workflows/{id}",
  operationId: "deleteWorkflow",
  summary: "Delete a workflow",
  description:
    "Deliberate: `confirmName` (query or body) must equal the workflow's name. Versions and runs are kept.",
  tag,
  minRole: "editor",
  params: IdParams,
  query: z.object({ confirmName: z.string().max(200).optional() }),
  body: z.strictObject({ confirmName: z.string().max(200).optional() }),
  responses: { 200: { description: "Deleted", schema: z.object({ ok: z.literal(true) }) } },
});

export const saveDraftOp = defineOperation({
  method: "PUT",
  path: "/workflows/{id}/draft",
  operationId: "saveDraft",
  summary: "Save the draft",
  description:
    "Any JSON is accepted (issues are returned, not refused). Pass the `baseRevision` you edited: a newer save by someone else answers 409 with `details.currentRevision`.",
  tag,
  minRole: "editor",
  params: IdParams,
  body: SaveDraftInput.omit({ workflowId: true }).strict(),
  maxBodyBytes: MAX_DEFINITION_BODY_BYTES,
  responses: {
    200: {
      description: "Saved (or unchanged)",
      schema: z.object({
        revision: z.number().int(),
        savedAt: z.string(),
        changed: z.boolean(),
        issues: z.array(JsonObject),
      }),
    },
  },
  errors: [409, 413],
});

export const validateDefinitionOp = defineOperation({
  method: "POST",
  path: "/workflows/validate",
  operationId: "validateDefinition",
  summary: "Validate a definition",
  description:
    "Validates with the workspace policy and, when valid, returns the content hash a published version of it would carry. Nothing is stored.",
  tag,
  minRole: "viewer",
  body: z.strictObject({ definition: z.unknown() }),
  maxBodyBytes: MAX_DEFINITION_BODY_BYTES,
  responses: {
    200: {
      description: "The verdict",
      schema: z.object({
        ok: z.boolean(),
        hash: z.string().nullable(),
        issues: z.array(JsonObject),
      }),
    },
  },
  errors: [413],
});

export const publishWorkflowOp = defineOperation({
  method: "POST",
  path: "/workflows/{id}/publish",
  operationId: "publishWorkflow",
  summary: "Publish the draft",
  description:
    "Validates the draft and appends a version (`bump`: patch by default). Identical content answers `status: unchanged`. `draftRevision` refuses (409) if the draft moved meanwhile.",
  tag,
  minRole: "editor",
  params: IdParams,
  body: PublishWorkflowInput.omit({ workflowId: true }).strict(),
  responses: { 200: { description: "Published", schema: JsonObject } },
  errors: [409],
});

const enabledOp = (enabled: boolean) =>
  defineOperation({
    method: "POST",
    path: `/workflows/{id}/${enabled ? "enable" : "disable"}`,
    operationId: enabled ? "enableWorkflow" : "disableWorkflow",
    summary: enabled ? "Enable a workflow" : "Disable a workflow",
    description: "A disabled workflow keeps its triggers but starts no runs.",
    tag,
    minRole: "editor",
    params: IdParams,
    responses: { 200: { description: "The updated metadata", schema: JsonObject } },
  });
export const enableWorkflowOp = enabledOp(true);
export const disableWorkflowOp = enabledOp(false);

export const exportWorkflowOp = defineOperation({
  method: "GET",
  path: "/workflows/{id}/export",
  operationId: "exportWorkflow",
  summary: "Export a definition as JSON or YAML",
  description: "The file itself (with `Content-Disposition`), layout included.",
  tag,
  minRole: "viewer",
  params: IdParams,
  query: z.object({
    format: DefinitionFormat.optional(),
    version: z
      .string()
      .max(64)
      .optional()
      .meta({ description: "A version id, `current` (default) or `draft`" }),
  }),
  responses: {
    200: { description: "The definition file", contentType: "application/json" },
  },
});

export const importWorkflowOp = defineOperation({
  method: "POST",
  path: "/workflows/import",
  operationId: "importWorkflow",
  summary: "Import a JSON or YAML definition",
  description:
    "As a new workflow, or as a new version (source `import`) of `workflowId`. Parse errors name line and column.",
  tag,
  minRole: "editor",
  body: ImportWorkflowInput.strict(),
  maxBodyBytes: MAX_DEFINITION_BODY_BYTES,
  responses: { 201: { description: "Imported", schema: JsonObject } },
  errors: [413],
});

export const syncWorkflowsOp = defineOperation({
  method: "PUT",
  path: "/workflows/sync",
  operationId: "syncWorkflows",
  summary: "Declarative sync by slug",
  description:
    "Plans every slug (create / publish / unchanged / would_delete / delete) and applies the plan as new versions (source `import`) in one transaction. `dryRun` only plans; workflows missing from the set are deleted only with `prune: true`.",
  tag,
  minRole: "editor",
  body: SyncWorkflowsInput,
  maxBodyBytes: 16 * 1024 * 1024,
  responses: { 200: { description: "The plan, applied unless dryRun", schema: JsonObject } },
  errors: [409, 413],
});

export const listVersionsOp = defineOperation({
  method: "GET",
  path: "/workflows/{id}/versions",
  operationId: "listVersions",
  summary: "List a workflow's versions",
  description: "Highest version first.",
  tag,
  minRole: "viewer",
  params: IdParams,
  responses: {
    200: { description: "Versions", schema: z.object({ items: z.array(VersionSummary) }) },
  },
});

export const getVersionOp = defineOperation({
  method: "GET",
  path: "/workflows/{id}/versions/{versionId}",
  operationId: "getVersion",
  summary: "Get one version with its definition",
  tag,
  minRole: "viewer",
  params: z.object({
    id: Id,
    versionId: Id.meta({ description: "A version id (ver_…) or its number (1.4.0)" }),
  }),
  responses: { 200: { description: "The version", schema: JsonObject } },
});

export const compareVersionsOp = defineOperation({
  method: "GET",
  path: "/workflows/{id}/versions/compare",
  operationId: "compareVersions",
  summary: "Compare two versions (or a version and the draft)",
  tag,
  minRole: "viewer",
  params: IdParams,
  query: z.object({
    from: Id.meta({ description: "A version id or `draft`" }),
    to: Id.meta({ description: "A version id or `draft`" }),
  }),
  responses: {
    200: { description: "Both JSON texts and the structural diff", schema: JsonObject },
  },
});

export const rollbackWorkflowOp = defineOperation({
  method: "POST",
  path: "/workflows/{id}/rollback",
  operationId: "rollbackWorkflow",
  summary: "Roll back to an earlier version",
  description:
    "Names the version by `versionId` or by its content `hash` (exactly one; a hash several versions share means the newest of them). Records a new version (source `rollback`) with that version's content; audited. When that content is already the current version, nothing is written and the answer is `{ alreadyAtVersion: true, version, versionId, hash }`.",
  tag,
  minRole: "editor",
  params: IdParams,
  // The service re-checks "exactly one of versionId or hash" (a refined schema cannot be omitted).
  body: z.strictObject(RollbackInput.shape).omit({ workflowId: true }),
  responses: {
    200: {
      description: "The new version, or `alreadyAtVersion: true` with the current one",
      schema: z.object({
        alreadyAtVersion: z.boolean(),
        version: z.string(),
        versionId: z.string(),
        restored: z.string().optional(),
        hash: z.string(),
      }),
    },
  },
});
