import { z } from "zod";

export const TRIGGER_TYPES = [
  "manual",
  "api",
  "schedule",
  "webhook",
  "event",
  "rerun",
  "subworkflow",
] as const;
export const TriggerType = z.enum(TRIGGER_TYPES);
export type TriggerType = z.infer<typeof TriggerType>;

export const INITIATOR_TYPES = [
  "user",
  "token",
  "schedule",
  "webhook",
  "event",
  "run",
  "system",
] as const;
export const InitiatorType = z.enum(INITIATOR_TYPES);
export type InitiatorType = z.infer<typeof InitiatorType>;

export const APPROVAL_STATUSES = [
  "pending",
  "approved",
  "rejected",
  "expired",
  "cancelled",
] as const;
export const ApprovalStatus = z.enum(APPROVAL_STATUSES);
export type ApprovalStatus = z.infer<typeof ApprovalStatus>;
