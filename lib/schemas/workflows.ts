import { z } from "zod";
import { HASH_PATTERN } from "../workflow/hash";
import { plainText } from "./text";

export const VERSION_SOURCES = [
  "create",
  "publish",
  "import",
  "proposal_apply",
  "rollback",
] as const;
export const VersionSource = z.enum(VERSION_SOURCES);
export type VersionSource = z.infer<typeof VersionSource>;

export const BUMPS = ["patch", "minor", "major"] as const;
export const Bump = z.enum(BUMPS);
export type Bump = z.infer<typeof Bump>;

/** Drafts and imports are capped: a definition of 1,000 steps is far below this. */
export const MAX_DEFINITION_BYTES = 2 * 1024 * 1024;
/**
 * A request carrying a definition: the definition cap and room for its JSON envelope. The body cap
 * of the /api/v1 operations and tRPC procedures that take a whole definition.
 */
export const MAX_DEFINITION_BODY_BYTES = MAX_DEFINITION_BYTES + 64 * 1024;

const id = z.string().min(1).max(64);
export const WorkflowRef = z.object({ workflowId: id });
export type WorkflowRef = z.infer<typeof WorkflowRef>;

export const WorkflowName = plainText(
  z.string().trim().min(1, "Give the workflow a name").max(200, "Name is too long"),
);
/** A workflow's description: free text, tabs and line breaks allowed. */
export const WorkflowDescription = plainText(z.string().max(10_000), { multiline: true });
export const Tag = z
  .string()
  .trim()
  .min(1)
  .max(40, "Tags are at most 40 characters")
  .regex(/^[\w .:/-]+$/, "Tags use letters, digits, spaces and . : / - _");

export const CreateWorkflowInput = z.object({
  name: WorkflowName,
  description: WorkflowDescription.optional(),
  /** A built-in template id; omitted = blank. */
  template: z.string().max(64).optional(),
  tags: z.array(Tag).max(20).optional(),
});
export type CreateWorkflowInput = z.infer<typeof CreateWorkflowInput>;

export const WORKFLOW_STATUS_FILTERS = [
  "all",
  "published",
  "draft_only",
  "unpublished_changes",
] as const;
export const ListWorkflowsInput = z.object({
  search: z.string().trim().max(200).optional(),
  tag: Tag.optional(),
  enabled: z.boolean().optional(),
  status: z.enum(WORKFLOW_STATUS_FILTERS).default("all"),
  limit: z.number().int().min(1).max(200).default(50),
  cursor: z.string().max(200).optional(),
});
export type ListWorkflowsInput = z.input<typeof ListWorkflowsInput>;

export const GetWorkflowInput = z.union([
  z.object({ workflowId: id }),
  z.object({ slug: z.string().min(1).max(120) }),
]);
export type GetWorkflowInput = z.infer<typeof GetWorkflowInput>;

export const UpdateWorkflowInput = z.object({
  workflowId: id,
  name: WorkflowName.optional(),
  description: WorkflowDescription.optional(),
  slug: z
    .string()
    .min(1)
    .max(120)
    .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, "Slugs use lower-case letters, digits and single dashes")
    .optional(),
  tags: z.array(Tag).max(20).optional(),
  isEnabled: z.boolean().optional(),
});
export type UpdateWorkflowInput = z.infer<typeof UpdateWorkflowInput>;

export const DeleteWorkflowInput = z.object({
  workflowId: id,
  /** Must equal the workflow's name: deleting is deliberate. */
  confirmName: z.string().max(200),
});
export type DeleteWorkflowInput = z.infer<typeof DeleteWorkflowInput>;

export const DuplicateWorkflowInput = z.object({ workflowId: id, name: WorkflowName.optional() });
export type DuplicateWorkflowInput = z.infer<typeof DuplicateWorkflowInput>;

export const SaveDraftInput = z.object({
  workflowId: id,
  /** Any JSON: drafts are not validated (autosave while typing). */
  definition: z.unknown(),
  /** The draft revision this edit started from; a mismatch means someone else saved meanwhile. */
  baseRevision: z.number().int().min(0).optional(),
});
export type SaveDraftInput = z.infer<typeof SaveDraftInput>;

export const SaveLayoutInput = z.object({
  workflowId: id,
  layout: z.object({
    positions: z
      .record(z.string().max(64), z.object({ x: z.number().finite(), y: z.number().finite() }))
      .optional(),
    viewport: z
      .object({
        x: z.number().finite(),
        y: z.number().finite(),
        zoom: z.number().finite().positive(),
      })
      .optional(),
  }),
});
export type SaveLayoutInput = z.infer<typeof SaveLayoutInput>;

export const PublishWorkflowInput = z.object({
  workflowId: id,
  bump: Bump.default("patch"),
  notes: z.string().max(5_000).default(""),
  /** Publish exactly this revision of the draft (refuse if it changed meanwhile). */
  draftRevision: z.number().int().min(0).optional(),
});
export type PublishWorkflowInput = z.input<typeof PublishWorkflowInput>;

export const VersionRef = z.object({ workflowId: id, versionId: id });
export type VersionRef = z.infer<typeof VersionRef>;

export const CompareVersionsInput = z.object({
  workflowId: id,
  /** A version id, or "draft". */
  from: id,
  to: id,
});
export type CompareVersionsInput = z.infer<typeof CompareVersionsInput>;

/** A published version's content hash, `sha256:` and 64 lower-case hex digits. */
export const VersionHash = z
  .string()
  .max(200)
  .regex(HASH_PATTERN, 'A version hash is "sha256:" followed by 64 lower-case hex digits');

/** Roll back to a version named by its id or by its content hash (exactly one). */
export const RollbackInput = z
  .object({
    workflowId: id,
    versionId: id.optional(),
    hash: VersionHash.optional(),
    notes: z.string().max(5_000).default(""),
  })
  .superRefine((v, ctx) => {
    if ((v.versionId === undefined) === (v.hash === undefined))
      ctx.addIssue({
        code: "custom",
        path: [v.versionId === undefined ? "versionId" : "hash"],
        message:
          v.versionId === undefined
            ? "Name the version to roll back to: versionId or hash"
            : "Give versionId or hash, not both",
      });
  });
export type RollbackInput = z.input<typeof RollbackInput>;

/** What a rollback did: a new version, or nothing because that content is already current. */
export type RollbackResult =
  | {
      alreadyAtVersion: false;
      version: string;
      versionId: string;
      restored: string;
      hash: string;
    }
  | { alreadyAtVersion: true; version: string; versionId: string; hash: string };

export const DEFINITION_FORMATS = ["json", "yaml"] as const;
export const DefinitionFormat = z.enum(DEFINITION_FORMATS);
export type DefinitionFormat = z.infer<typeof DefinitionFormat>;

export const ImportWorkflowInput = z.object({
  /** JSON or YAML text. */
  content: z
    .string()
    .min(1, "Paste or upload a definition")
    .max(MAX_DEFINITION_BYTES, "The file is larger than 2 MiB"),
  format: DefinitionFormat.optional(),
  /** Import as a new version of this workflow; omitted = a new workflow. */
  workflowId: id.optional(),
  notes: z.string().max(5_000).default(""),
});
export type ImportWorkflowInput = z.input<typeof ImportWorkflowInput>;

export const ExportWorkflowInput = z.object({
  workflowId: id,
  /** A version id, "current" (default) or "draft". */
  version: z.string().max(64).default("current"),
  format: DefinitionFormat.default("json"),
});
export type ExportWorkflowInput = z.input<typeof ExportWorkflowInput>;
