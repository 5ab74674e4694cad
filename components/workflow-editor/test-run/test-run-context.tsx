"use client";
import { useQuery } from "@tanstack/react-query";
import {
  createContext,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from "react";
import { isActiveRun } from "@/components/runs/format";
import { useTRPC } from "@/lib/trpc/client";
import { testStepResults, type TestStepResult } from "./test-results";

/**
 * The editor's test runs (docs/runs.md "Testing while building"): which test run is shown, its
 * step results for the inspector and the nodes' badges, and how to start one. The draft is read
 * through a ref, so typing in the editor does not re-render every badge.
 */
export interface TestRunState {
  workflowId: string;
  readOnly: boolean;
  /** The draft as the editor holds it now (unsaved edits included), or null when it does not parse. */
  draft(): Record<string, unknown> | null;
  /** The test run shown, and the step it tested. */
  current: { runId: string; stepId: string } | null;
  show(run: { runId: string; stepId: string } | null): void;
  runStatus: string | null;
  results: ReadonlyMap<string, TestStepResult>;
}

const TestRunContext = createContext<TestRunState | null>(null);

export function useTestRun(): TestRunState | null {
  return useContext(TestRunContext);
}

export function TestRunProvider({
  workflowId,
  readOnly,
  definition,
  children,
}: {
  workflowId: string;
  readOnly: boolean;
  definition: Record<string, unknown> | null;
  children: ReactNode;
}) {
  const trpc = useTRPC();
  const latest = useRef(definition);
  useEffect(() => {
    latest.current = definition;
  }, [definition]);
  const [current, show] = useState<{ runId: string; stepId: string } | null>(null);
  const runId = current?.runId ?? "";
  const run = useQuery({
    ...trpc.run.get.queryOptions({ runId }),
    enabled: !!current,
    refetchInterval: (q) => (q.state.data && isActiveRun(q.state.data.status) ? 1000 : false),
  });
  const active = !run.data || isActiveRun(run.data.status);
  const steps = useQuery({
    ...trpc.run.steps.queryOptions({ runId }),
    enabled: !!current,
    refetchInterval: current && active ? 1000 : false,
  });
  const value = useMemo<TestRunState>(
    () => ({
      workflowId,
      readOnly,
      draft: () => latest.current,
      current,
      show,
      runStatus: current ? (run.data?.status ?? null) : null,
      results: current && steps.data ? testStepResults(steps.data) : new Map(),
    }),
    [workflowId, readOnly, current, run.data?.status, steps.data],
  );
  return <TestRunContext.Provider value={value}>{children}</TestRunContext.Provider>;
}
