import type { Metadata } from "next";
import { ProposalRulesSettings } from "@/components/settings/proposal-rules-settings";
import { HydrateClient, prefetch, trpc } from "@/server/trpc/rsc";

export const metadata: Metadata = { title: "Proposal rules" };

export default async function ProposalRulesPage() {
  await prefetch(trpc.proposalRules.get.queryOptions());
  return (
    <HydrateClient>
      <ProposalRulesSettings />
    </HydrateClient>
  );
}
