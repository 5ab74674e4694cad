"use client";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/lib/trpc/client";
import type { InputSpec } from "@/lib/workflow/definition";

/** The workflow, as `workflow.get` (the workflow layout awaits it on the server). */
export function useWorkflow(workflowId: string) {
  const trpc = useTRPC();
  return useQuery(trpc.workflow.get.queryOptions({ workflowId }));
}

export function useInvalidateWorkflow() {
  const trpc = useTRPC();
  return {
    keys: {
      get: (workflowId: string) => trpc.workflow.get.queryKey({ workflowId }),
      versions: (workflowId: string) => trpc.workflow.versions.queryKey({ workflowId }),
      list: () => trpc.workflow.list.infiniteQueryKey(),
    },
  };
}

/**
 * The inputs the workflow's current (published) version declares — what runs started by
 * triggers are checked against. `undefined` while loading or when nothing is published.
 */
export function useCurrentInputs(workflowId: string): Record<string, InputSpec> | undefined {
  const trpc = useTRPC();
  const wf = useWorkflow(workflowId);
  const versionId = wf.data?.currentVersion?.id;
  const version = useQuery({
    ...trpc.workflow.version.queryOptions({ workflowId, versionId: versionId ?? "" }),
    enabled: !!versionId,
  });
  if (!versionId || !version.data) return undefined;
  return ((version.data.definition as { inputs?: Record<string, InputSpec> } | null)?.inputs ??
    {}) as Record<string, InputSpec>;
}
