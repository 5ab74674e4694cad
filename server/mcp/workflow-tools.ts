import "server-only";
import { z } from "zod";
import { ListWorkflowsInput } from "@/lib/schemas/workflows";
import { findWorkflow } from "../services/workflows/find-workflow";
import { getVersion } from "../services/workflows/get-version";
import { getWorkflow } from "../services/workflows/get-workflow";
import { listWorkflows } from "../services/workflows/list-workflows";
import { validateWorkflowDefinition } from "../services/workflows/validate-workflow-definition";
import { READ, workflowRef, type ToolKit } from "./tool-kit";

/** Reading workflows: list, get (with the published hash propose_change needs), validate. */
export function registerWorkflowTools({ tool, ctx }: ToolKit): void {
  tool(
    "list_workflows",
    {
      title: "List workflows",
      description:
        "Workflows of the token's workspace, most recently updated first, with their published version. Page with `cursor` (the previous answer's nextCursor).",
      minRole: "viewer",
      annotations: READ,
      input: {
        search: ListWorkflowsInput.shape.search.describe("Matches name, slug or description"),
        tag: ListWorkflowsInput.shape.tag,
        status: ListWorkflowsInput.shape.status.describe(
          "published | draft_only | unpublished_changes | all",
        ),
        limit: z.number().int().min(1).max(200).default(50),
        cursor: ListWorkflowsInput.shape.cursor,
      },
    },
    (args) => listWorkflows({ ctx, input: args }),
  );

  tool(
    "get_workflow",
    {
      title: "Get a workflow",
      description:
        "One workflow: metadata, its draft with validation issues, and the published definition with its hash (the `baseHash` for propose_change).",
      minRole: "viewer",
      annotations: READ,
      input: { workflow: workflowRef },
    },
    async ({ workflow }) => {
      const found = await findWorkflow({ ctx, input: { ref: workflow } });
      const { layout: _layout, ...wf } = await getWorkflow({
        ctx,
        input: { workflowId: found.id },
      });
      const published = found.currentVersionId
        ? await getVersion({
            ctx,
            input: { workflowId: found.id, versionId: found.currentVersionId },
          })
        : null;
      return {
        ...wf,
        published: published
          ? {
              versionId: published.id,
              version: published.version,
              hash: published.hash,
              createdAt: published.createdAt,
              definition: published.definition,
            }
          : null,
      };
    },
  );

  tool(
    "validate_workflow",
    {
      title: "Validate a definition",
      description:
        "Checks a workflow definition (JSON) without saving it, under this workspace's policies: `ok`, the hash it would publish as, and every issue with its JSON path. An invalid definition is a normal answer (ok: false), not an error.",
      minRole: "viewer",
      annotations: READ,
      input: {
        definition: z
          .record(z.string(), z.unknown())
          .describe("The workflow definition (schemaVersion, name, steps, edges, …)"),
      },
    },
    (args) => validateWorkflowDefinition({ ctx, input: args }),
  );
}
