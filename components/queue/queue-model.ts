import { workflowLabel } from "@/lib/schemas/runs";

/**
 * "My queue": tasks and approval gates waiting for the signed-in member, as one list sorted by
 * when each is due (a task's `due`, else its expiry; an approval's `dueAt` when it has one, else
 * its expiry). Overdue = due in the past.
 */

export interface QueueTask {
  id: string;
  runId: string;
  stepId: string;
  instructions: string;
  /** Null for a task of an inline run. */
  workflowId: string | null;
  workflowName: string | null;
  dueAt: Date | string | null;
  expiresAt: Date | string;
}

export interface QueueApproval {
  id: string;
  runId: string;
  stepId: string;
  prompt: string;
  /** Null for a gate of an inline run. */
  workflowId: string | null;
  workflowName?: string | null;
  expiresAt: Date | string | null;
  dueAt?: Date | string | null;
}

export interface QueueItem {
  kind: "task" | "approval";
  id: string;
  runId: string;
  stepId: string;
  title: string;
  /** The workflow's name, or "Inline run" (workflowLabel). */
  workflowLabel: string;
  /** What the list sorts by and shows as "due". */
  due: Date | null;
  /** Whether `due` is the item's own due date (else its expiry). */
  hasDueDate: boolean;
  isOverdue: boolean;
}

const toDate = (d: Date | string | null | undefined): Date | null =>
  d === null || d === undefined ? null : d instanceof Date ? d : new Date(d);

/** The first line of a text, cut to `max` characters (list titles). */
export function firstLine(text: string, max = 120): string {
  const line = text.trim().split(/\r?\n/, 1)[0] ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export function mergeQueue(
  tasks: readonly QueueTask[],
  approvals: readonly QueueApproval[],
  now: number,
): QueueItem[] {
  const items: QueueItem[] = [
    ...tasks.map((t) => {
      const due = toDate(t.dueAt) ?? toDate(t.expiresAt);
      return {
        kind: "task" as const,
        id: t.id,
        runId: t.runId,
        stepId: t.stepId,
        title: firstLine(t.instructions) || t.stepId,
        workflowLabel: workflowLabel(t),
        due,
        hasDueDate: t.dueAt !== null,
        isOverdue: t.dueAt !== null && due !== null && due.getTime() < now,
      };
    }),
    ...approvals.map((a) => {
      const own = toDate(a.dueAt);
      const due = own ?? toDate(a.expiresAt);
      return {
        kind: "approval" as const,
        id: a.id,
        runId: a.runId,
        stepId: a.stepId,
        title: firstLine(a.prompt) || a.stepId,
        workflowLabel: workflowLabel(a),
        due,
        hasDueDate: own !== null,
        isOverdue: own !== null && own.getTime() < now,
      };
    }),
  ];
  return items.sort((x, y) => {
    const dx = x.due?.getTime() ?? Infinity;
    const dy = y.due?.getTime() ?? Infinity;
    return dx !== dy ? dx - dy : x.id < y.id ? -1 : x.id > y.id ? 1 : 0;
  });
}
