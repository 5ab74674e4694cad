import type { Metadata } from "next";
import { ProposalReview } from "@/components/proposals/proposal-review";

export const metadata: Metadata = { title: "Review proposal" };

export default async function ProposalPage({
  params,
}: {
  params: Promise<{ id: string; proposalId: string }>;
}) {
  const { id, proposalId } = await params;
  return <ProposalReview workflowId={id} proposalId={proposalId} />;
}
