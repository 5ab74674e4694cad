import type { Metadata } from "next";
import { QuotaSettings } from "@/components/settings/quota-settings";
import { HydrateClient, prefetch, trpc } from "@/server/trpc/rsc";

export const metadata: Metadata = { title: "Quotas" };

export default async function QuotasPage() {
  await prefetch(trpc.quota.get.queryOptions());
  return (
    <HydrateClient>
      <QuotaSettings />
    </HydrateClient>
  );
}
