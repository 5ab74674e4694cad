import type { Metadata } from "next";
import { AdmissionSettings } from "@/components/settings/admission-settings";
import { PoliciesSettings } from "@/components/settings/policies-settings";
import { HydrateClient, prefetch, trpc } from "@/server/trpc/rsc";

export const metadata: Metadata = { title: "Policies" };

export default async function PoliciesPage() {
  await prefetch(trpc.settings.get.queryOptions());
  return (
    <HydrateClient>
      <PoliciesSettings />
      <AdmissionSettings />
    </HydrateClient>
  );
}
