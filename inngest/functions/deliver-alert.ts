import { AlertDeliverData, EVENTS } from "../events";
import { inngest } from "../client";
import { deliverAlertBody } from "@/server/services/alerts/alert-bodies";

/**
 * Sends one recorded alert (an outbox message committed with the alert row). A failing channel
 * throws, and the executor retries with backoff; channels already reached are not sent again.
 */
export const deliverAlertFn = inngest.createFunction(
  {
    id: "deliver-alert",
    name: "Deliver alert",
    retries: 8,
    triggers: [{ event: EVENTS.alertDeliver }],
  },
  async ({ event, step }) => {
    const data = AlertDeliverData.parse(event.data);
    return step.run("deliver", () => deliverAlertBody(data));
  },
);
