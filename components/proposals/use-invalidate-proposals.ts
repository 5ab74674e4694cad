"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { useTRPC } from "@/lib/trpc/client";

/** After a review, apply or rollback: every proposal query and the workflow's own data are stale. */
export function useInvalidateProposals() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  return useCallback(() => {
    void qc.invalidateQueries(trpc.proposal.pathFilter());
    void qc.invalidateQueries(trpc.workflow.pathFilter());
  }, [qc, trpc]);
}
