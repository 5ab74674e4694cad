import type { Metadata } from "next";
import { ProposalList } from "@/components/proposals/proposal-list";

export const metadata: Metadata = { title: "Proposals" };

export default async function WorkflowProposalsPage({
  params,
}: {
  params: Promise<{ id: string }>;
}) {
  const { id } = await params;
  return <ProposalList workflowId={id} />;
}
