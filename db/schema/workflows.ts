import { sql } from "drizzle-orm";
import {
  boolean,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { VERSION_SOURCES } from "../../lib/schemas/workflows";
import { createdAt, tstz } from "./common";
import { users } from "./users";
import { workspaces } from "./workspaces";

export const versionSourceEnum = pgEnum("workflow_version_source", VERSION_SOURCES);

export const workflows = pgTable(
  "workflows",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** Unique per workspace among live workflows; used by the API, CLI and subworkflow steps. */
    slug: text("slug").notNull(),
    description: text("description").notNull().default(""),
    tags: text("tags")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    isEnabled: boolean("is_enabled").notNull().default(true),
    /** The mutable draft: any JSON (autosaved, not validated). */
    draft: jsonb("draft").$type<unknown>().notNull(),
    /** Bumped on every draft save; callers pass the revision they edited to detect lost updates. */
    draftRevision: integer("draft_revision").notNull().default(1),
    draftUpdatedAt: tstz("draft_updated_at").notNull().defaultNow(),
    draftUpdatedBy: text("draft_updated_by").references(() => users.id),
    /** Hash of the draft when it validates, else null: "unpublished changes" = differs from the current version. */
    draftHash: text("draft_hash"),
    /** Editor layout (positions, viewport), stored apart from the graph; never versioned. */
    layout: jsonb("layout").$type<Record<string, unknown>>().notNull().default({}),
    currentVersionId: text("current_version_id"),
    createdBy: text("created_by").references(() => users.id),
    createdAt: createdAt(),
    updatedAt: tstz("updated_at").notNull().defaultNow(),
    deletedAt: tstz("deleted_at"),
  },
  (t) => [
    uniqueIndex("workflows_workspace_slug_key")
      .on(t.workspaceId, t.slug)
      .where(sql`${t.deletedAt} is null`),
    index("workflows_workspace_updated_idx").on(t.workspaceId, t.updatedAt),
    index("workflows_workspace_enabled_idx").on(t.workspaceId, t.isEnabled),
    index("workflows_current_version_idx").on(t.currentVersionId),
    index("workflows_created_by_idx").on(t.createdBy),
    index("workflows_draft_updated_by_idx").on(t.draftUpdatedBy),
  ],
);

/**
 * Content-addressed definitions: one row per (workspace, canonical hash). Versions point here, so a
 * rollback or a re-publish of old content stores nothing new. Scoped by workspace so a hash never
 * reveals another tenant's content.
 */
export const definitionContents = pgTable(
  "definition_contents",
  {
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    hash: text("hash").notNull(),
    /** The normalized definition (defaults explicit, layout excluded). */
    definition: jsonb("definition").$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.hash] })],
);

/** Immutable published versions (append-only: a trigger refuses UPDATE and DELETE). */
export const workflowVersions = pgTable(
  "workflow_versions",
  {
    id: text("id").primaryKey(),
    workflowId: text("workflow_id")
      .notNull()
      .references(() => workflows.id, { onDelete: "cascade" }),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    version: text("version").notNull(),
    major: integer("major").notNull(),
    minor: integer("minor").notNull(),
    patch: integer("patch").notNull(),
    hash: text("hash").notNull(),
    source: versionSourceEnum("source").notNull(),
    notes: text("notes").notNull().default(""),
    /** user | token | run | system */
    authorType: text("author_type").notNull(),
    authorId: text("author_id"),
    /** For rollbacks: the version whose content was restored. */
    restoredFromVersionId: text("restored_from_version_id"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("workflow_versions_workflow_version_key").on(t.workflowId, t.version),
    index("workflow_versions_workflow_created_idx").on(t.workflowId, t.createdAt),
    index("workflow_versions_workspace_hash_idx").on(t.workspaceId, t.hash),
    index("workflow_versions_restored_from_idx").on(t.restoredFromVersionId),
  ],
);
