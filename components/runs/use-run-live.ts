"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { useTRPC, useTRPCClient } from "@/lib/trpc/client";

/**
 * Live updates for a run page: while the run is active, polls the append-only event history
 * (cursor = last event id) about once a second and refreshes the run and its steps when anything
 * new happened (and the approval lists when a gate opened or was decided). Stops when the run
 * ends.
 */
export function useRunLive(runId: string, active: boolean) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const qc = useQueryClient();
  const cursor = useRef<number>(0);
  useEffect(() => {
    if (!active) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      try {
        const events = await client.run.events.query({ runId, after: cursor.current });
        const last = events[events.length - 1];
        if (last) {
          cursor.current = last.id;
          await Promise.all([
            qc.invalidateQueries({ queryKey: trpc.run.get.queryKey({ runId }) }),
            qc.invalidateQueries({ queryKey: trpc.run.steps.queryKey({ runId }) }),
            // A gate opened or decided (here, in the inbox, by API or link): the sidebar's
            // approvals badge and any inbox follow at once.
            events.some((e) => e.type.startsWith("approval."))
              ? qc.invalidateQueries({ queryKey: trpc.approval.list.queryKey() })
              : undefined,
          ]);
        }
      } catch {
        // A failed poll is retried on the next tick.
      }
      if (!stopped) timer = setTimeout(tick, 1000);
    };
    void tick();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }, [runId, active, client, qc, trpc]);
}
