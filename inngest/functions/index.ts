import { systemPing } from "./system-ping";

/** Every function the app serves at /api/inngest. */
export const functions = [systemPing];
