import type { Metadata } from "next";
import { WorkspaceAlertsSettings } from "@/components/alerts/workspace-alerts-settings";
import { HydrateClient, prefetch, trpc } from "@/server/trpc/rsc";

export const metadata: Metadata = { title: "Alerts" };

export default async function AlertsSettingsPage() {
  await prefetch(trpc.alert.workspace.queryOptions());
  return (
    <HydrateClient>
      <WorkspaceAlertsSettings />
    </HydrateClient>
  );
}
