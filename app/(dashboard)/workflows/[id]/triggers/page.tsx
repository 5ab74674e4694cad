import type { Metadata } from "next";
import { TriggerList } from "@/components/triggers/trigger-list";

export const metadata: Metadata = { title: "Triggers" };

export default async function TriggersPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <TriggerList workflowId={id} />;
}
