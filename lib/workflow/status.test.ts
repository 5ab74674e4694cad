import { describe, expect, it } from "vitest";
import { APPROVAL_STATUSES } from "../schemas/runs";
import { TASK_STATUSES } from "../schemas/tasks";
import {
  ACTIVE_RUN_STATUSES,
  APPROVAL_TRANSITIONS,
  TASK_TRANSITIONS,
  canTransition,
  canTransitionStep,
  FailureClass,
  isActive,
  isActiveRunStatus,
  isActiveStepStatus,
  isRetryableFailure,
  isTerminal,
  isTerminalRunStatus,
  isTerminalStepStatus,
  EXECUTING_STATUSES,
  OPEN_STEP_STATUSES,
  PROPOSAL_STATUSES,
  PROPOSAL_TRANSITIONS,
  isOpenProposalStatus,
  RUN_STATUSES,
  RUN_TRANSITIONS,
  RunStatus,
  runStatusLabel,
  STEP_STATUSES,
  STEP_TRANSITIONS,
  StepStatus,
  stepStatusLabel,
  transitionSources,
  UNFINISHED_RUN_STATUSES,
} from "./status";

describe("run statuses", () => {
  it("zod enums accept exactly the listed statuses", () => {
    for (const s of RUN_STATUSES) expect(RunStatus.parse(s)).toBe(s);
    expect(RunStatus.safeParse("done").success).toBe(false);
    expect(StepStatus.safeParse("queued").success).toBe(false);
  });

  it("terminal and active predicates", () => {
    expect(RUN_STATUSES.filter(isTerminalRunStatus)).toEqual([
      "completed",
      "failed",
      "cancelled",
      "timed_out",
    ]);
    expect(RUN_STATUSES.filter(isActiveRunStatus)).toEqual([
      "running",
      "waiting",
      "cancel_requested",
    ]);
    expect(RUN_STATUSES.filter((s) => isActive(s))).toEqual(["running", "waiting"]);
    expect(isTerminal("timed_out")).toBe(true);
    expect(isTerminal("skipped")).toBe(true);
    expect(isTerminal("cancel_requested")).toBe(false);
  });

  it("follows the SPEC lifecycle queued → running → (waiting) → terminal", () => {
    expect(canTransition("queued", "running")).toBe(true);
    expect(canTransition("running", "waiting")).toBe(true);
    expect(canTransition("waiting", "running")).toBe(true);
    expect(canTransition("running", "completed")).toBe(true);
    expect(canTransition("running", "cancel_requested")).toBe(true);
    expect(canTransition("cancel_requested", "cancelled")).toBe(true);
    expect(canTransition("running", "timed_out")).toBe(true);
  });

  it("refuses leaving a terminal status, going back to queued, and same-status moves", () => {
    for (const from of RUN_STATUSES.filter(isTerminalRunStatus))
      for (const to of RUN_STATUSES) expect(canTransition(from, to)).toBe(false);
    for (const from of RUN_STATUSES) expect(canTransition(from, "queued")).toBe(false);
    for (const s of RUN_STATUSES) expect(canTransition(s, s)).toBe(false);
    expect(canTransition("queued", "waiting")).toBe(false);
    expect(canTransition("cancel_requested", "running")).toBe(false);
  });

  it("every non-terminal run status can reach a terminal one", () => {
    for (const s of RUN_STATUSES.filter((x) => !isTerminalRunStatus(x)))
      expect(RUN_TRANSITIONS[s].some(isTerminalRunStatus)).toBe(true);
  });

  it("labels every status", () => {
    for (const s of RUN_STATUSES) expect(runStatusLabel(s)).toMatch(/^[A-Z]/);
    for (const s of STEP_STATUSES) expect(stepStatusLabel(s)).toMatch(/^[A-Z]/);
    expect(runStatusLabel("cancel_requested")).toBe("Cancelling");
  });

  it("exhaustive switches throw on values outside the enum", () => {
    expect(() => runStatusLabel("nope" as RunStatus)).toThrow(/Unexpected value/);
    expect(() => isTerminalRunStatus("nope" as RunStatus)).toThrow();
  });
});

describe("step statuses", () => {
  it("predicates", () => {
    expect(STEP_STATUSES.filter(isTerminalStepStatus)).toEqual([
      "completed",
      "failed",
      "skipped",
      "cancelled",
    ]);
    expect(STEP_STATUSES.filter(isActiveStepStatus)).toEqual(["running", "waiting"]);
  });

  it("transitions: pending → running → (waiting) → terminal; pending → skipped/cancelled; no way out of terminal", () => {
    expect(canTransitionStep("pending", "running")).toBe(true);
    expect(canTransitionStep("pending", "skipped")).toBe(true);
    expect(canTransitionStep("running", "waiting")).toBe(true);
    expect(canTransitionStep("waiting", "completed")).toBe(true);
    expect(canTransitionStep("running", "skipped")).toBe(false);
    expect(canTransitionStep("pending", "completed")).toBe(false);
    for (const from of STEP_STATUSES.filter(isTerminalStepStatus))
      expect(STEP_TRANSITIONS[from]).toEqual([]);
  });
});

describe("failure classes", () => {
  it("only operational failures are retried", () => {
    expect(FailureClass.options).toEqual(["user", "operational", "internal"]);
    expect(isRetryableFailure("operational")).toBe(true);
    expect(isRetryableFailure("user")).toBe(false);
    expect(isRetryableFailure("internal")).toBe(false);
  });
});

describe("named status sets agree with the predicates", () => {
  const sorted = (xs: readonly string[]) => [...xs].sort();
  it("active runs = isActiveRunStatus", () => {
    expect(sorted(ACTIVE_RUN_STATUSES)).toEqual(sorted(RUN_STATUSES.filter(isActiveRunStatus)));
  });
  it("unfinished runs = not terminal", () => {
    expect(sorted(UNFINISHED_RUN_STATUSES)).toEqual(
      sorted(RUN_STATUSES.filter((s) => !isTerminalRunStatus(s))),
    );
  });
  it("executing = isActive, for runs and for steps", () => {
    expect(sorted(EXECUTING_STATUSES)).toEqual(sorted(RUN_STATUSES.filter(isActive)));
    expect(sorted(EXECUTING_STATUSES)).toEqual(sorted(STEP_STATUSES.filter(isActiveStepStatus)));
  });
  it("open steps = not terminal", () => {
    expect(sorted(OPEN_STEP_STATUSES)).toEqual(
      sorted(STEP_STATUSES.filter((s) => !isTerminalStepStatus(s))),
    );
  });
});

/*
 * The tables decide every status write (server/services/run-state/transition.ts computes each
 * write's `WHERE status IN (…)` with transitionSources), so each must be a well-formed graph:
 *
 *   initial ──▶ … ──▶ terminal        every status reachable from the initial one,
 *                                     every non-terminal one able to end, terminals final
 */
const tables = [
  {
    name: "runs",
    statuses: RUN_STATUSES,
    table: RUN_TRANSITIONS,
    initial: "queued",
    isTerminal: (s: string) => isTerminalRunStatus(s as RunStatus),
  },
  {
    name: "steps",
    statuses: STEP_STATUSES,
    table: STEP_TRANSITIONS,
    initial: "pending",
    isTerminal: (s: string) => isTerminalStepStatus(s as StepStatus),
  },
  {
    name: "proposals",
    statuses: PROPOSAL_STATUSES,
    table: PROPOSAL_TRANSITIONS,
    initial: "pending",
    isTerminal: (s: string) => !isOpenProposalStatus(s as (typeof PROPOSAL_STATUSES)[number]),
  },
  {
    name: "approvals",
    statuses: APPROVAL_STATUSES,
    table: APPROVAL_TRANSITIONS,
    initial: "pending",
    isTerminal: (s: string) => s !== "pending",
  },
  {
    name: "tasks",
    statuses: TASK_STATUSES,
    table: TASK_TRANSITIONS,
    initial: "pending",
    isTerminal: (s: string) => s !== "pending",
  },
] as const;

describe.each(tables)("$name transition table", ({ statuses, table, initial, isTerminal }) => {
  const t = table as Readonly<Record<string, readonly string[]>>;
  it("has exactly one entry per status, naming only known statuses, without repeats or self-moves", () => {
    expect(Object.keys(t).sort()).toEqual([...statuses].sort());
    for (const [from, tos] of Object.entries(t)) {
      for (const to of tos) expect(statuses as readonly string[]).toContain(to);
      expect(new Set(tos).size).toBe(tos.length);
      expect(tos).not.toContain(from);
    }
  });

  it("reaches every status from the initial one", () => {
    const seen = new Set<string>([initial]);
    for (let frontier = [initial as string]; frontier.length;) {
      frontier = frontier.flatMap((s) => t[s]!.filter((n) => !seen.has(n)));
      for (const s of frontier) seen.add(s);
    }
    expect([...seen].sort()).toEqual([...statuses].sort());
  });

  it("terminal statuses have no way out; every other status can end", () => {
    for (const s of statuses) {
      if (isTerminal(s)) expect(t[s]).toEqual([]);
      else expect(t[s]!.some(isTerminal)).toBe(true);
    }
  });

  it("transitionSources is the table read backwards", () => {
    for (const to of statuses) {
      const sources = transitionSources(t, to);
      expect(sources.sort()).toEqual(statuses.filter((from) => t[from]!.includes(to)).sort());
    }
  });
});

describe("transitionSources", () => {
  it("names the statuses a write may start from", () => {
    expect(transitionSources(RUN_TRANSITIONS, "cancel_requested").sort()).toEqual([
      "running",
      "waiting",
    ]);
    expect(transitionSources(RUN_TRANSITIONS, "running").sort()).toEqual(["queued", "waiting"]);
    expect(transitionSources(RUN_TRANSITIONS, "queued")).toEqual([]);
    expect(transitionSources(STEP_TRANSITIONS, "cancelled").sort()).toEqual([
      "pending",
      "running",
      "waiting",
    ]);
  });

  it("a choice of targets: every target allowed, or the row's own status (a touch)", () => {
    // queued → waiting is not allowed, so a running-or-waiting write leaves queued runs alone.
    expect(transitionSources(RUN_TRANSITIONS, ["running", "waiting"]).sort()).toEqual([
      "running",
      "waiting",
    ]);
    expect(transitionSources(RUN_TRANSITIONS, ["completed", "timed_out"]).sort()).toEqual([
      "cancel_requested",
      "running",
      "waiting",
    ]);
  });
});
