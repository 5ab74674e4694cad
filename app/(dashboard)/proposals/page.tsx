import type { Metadata } from "next";
import { ProposalList } from "@/components/proposals/proposal-list";
import { PageHead } from "@/components/shell/page-head";

export const metadata: Metadata = { title: "Proposals" };

export default function ProposalsInboxPage() {
  return (
    <div className="page">
      <PageHead
        title="Proposals"
        description="Suggested workflow changes from people and agents, waiting for review first."
      />
      <ProposalList />
    </div>
  );
}
