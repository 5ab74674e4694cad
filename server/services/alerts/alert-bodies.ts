import "server-only";
import { runtimeNow, stepRuntime } from "../step-execution/runtime";
import { deliverAlert } from "./deliver-alert";
import { sweepAlerts } from "./sweep-alerts";

/** Durable step bodies of the alert functions (inngest/functions/deliver-alert.ts, sweep-alerts.ts). */
export async function deliverAlertBody(data: { alertId: string; workspaceId: string }) {
  const rt = await stepRuntime();
  return deliverAlert(
    { ...rt, log: rt.log.child({ component: "alerts" }) },
    data.alertId,
    data.workspaceId,
    runtimeNow,
  );
}

export async function sweepAlertsBody() {
  const { db } = await stepRuntime();
  return sweepAlerts(db, runtimeNow());
}
