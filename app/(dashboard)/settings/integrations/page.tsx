import type { Metadata } from "next";
import { IntegrationsSettings } from "@/components/settings/integrations-settings";
import { HydrateClient, prefetch, trpc } from "@/server/trpc/rsc";

export const metadata: Metadata = { title: "Integrations" };

export default async function IntegrationsPage() {
  await prefetch(trpc.settings.get.queryOptions());
  return (
    <HydrateClient>
      <IntegrationsSettings />
    </HydrateClient>
  );
}
