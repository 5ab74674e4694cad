import { inngest } from "../client";

export const SYSTEM_PING_EVENT = "sluice/system.ping";

/** A one-step function for checking the executor end to end (send `sluice/system.ping`). */
export const systemPing = inngest.createFunction(
  { id: "system-ping", name: "System ping", retries: 0, triggers: [{ event: SYSTEM_PING_EVENT }] },
  async ({ event, step }) => {
    const pong = await step.run("pong", () => ({ pong: true, received: event.id ?? null }));
    return pong;
  },
);
