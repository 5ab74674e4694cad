import type { Metadata } from "next";
import { MyQueue } from "@/components/queue/my-queue";
import { PageHead } from "@/components/shell/page-head";

export const metadata: Metadata = { title: "My queue" };

export default function QueuePage() {
  return (
    <div className="page">
      <PageHead
        title="My queue"
        description="Tasks assigned to you and approvals you can decide, soonest due first."
      />
      <MyQueue />
    </div>
  );
}
