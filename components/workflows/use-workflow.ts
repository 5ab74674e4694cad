"use client";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/lib/trpc/client";

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
