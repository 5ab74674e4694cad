import { z } from "zod";

/**
 * Schedule read contracts (SPEC §7). The schedule's own config and the preview input live in
 * `lib/schemas/triggers.ts` with the other trigger kinds.
 */

export const SCHEDULE_TICK_STATUSES = ["fired", "skipped", "missed", "failed"] as const;
export const ScheduleTickStatus = z.enum(SCHEDULE_TICK_STATUSES);
export type ScheduleTickStatus = z.infer<typeof ScheduleTickStatus>;

/** Newest first; `cursor` is the `tick` of the last item of the previous page. */
export const ListScheduleTicksInput = z.object({
  triggerId: z.string().min(1).max(64),
  limit: z.number().int().min(1).max(200).default(50),
  cursor: z.iso.datetime({ offset: true }).optional(),
});
export type ListScheduleTicksInput = z.input<typeof ListScheduleTicksInput>;
