import type { Metadata } from "next";
import { TriggerDetail } from "@/components/triggers/trigger-detail";

export const metadata: Metadata = { title: "Trigger" };

export default async function TriggerPage({
  params,
}: {
  params: Promise<{ id: string; triggerId: string }>;
}) {
  const { id, triggerId } = await params;
  return <TriggerDetail workflowId={id} triggerId={triggerId} />;
}
