"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useToast } from "@/components/ui/toast";
import { useTRPC } from "@/lib/trpc/client";

/**
 * The trigger page's mutations: enable/disable, take over ownership and delete, each refreshing
 * the trigger and the workflow's trigger list. Deleting goes back to the list.
 */
export function useTriggerActions(workflowId: string, triggerId: string) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const router = useRouter();
  const toast = useToast();
  const invalidate = () =>
    Promise.all([
      qc.invalidateQueries({ queryKey: trpc.trigger.get.queryKey({ triggerId }) }),
      qc.invalidateQueries({ queryKey: trpc.trigger.list.queryKey({ workflowId }) }),
    ]);
  const setEnabled = useMutation(
    trpc.trigger.setEnabled.mutationOptions({
      onSuccess: () => void invalidate(),
      onError: (e) => toast(e.message, "error"),
    }),
  );
  const takeOver = useMutation(
    trpc.trigger.takeOver.mutationOptions({
      onSuccess: () => {
        toast("You own this trigger now: its runs count against you");
        void invalidate();
      },
      onError: (e) => toast(e.message, "error"),
    }),
  );
  const del = useMutation(
    trpc.trigger.delete.mutationOptions({
      onSuccess: () => {
        toast("Trigger deleted");
        void qc.invalidateQueries({ queryKey: trpc.trigger.list.queryKey({ workflowId }) });
        router.push(`/workflows/${workflowId}/triggers`);
      },
    }),
  );
  return { invalidate, setEnabled, takeOver, del };
}
