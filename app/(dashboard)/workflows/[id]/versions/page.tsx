import type { Metadata } from "next";
import { VersionHistory } from "@/components/workflows/version-history";

export const metadata: Metadata = { title: "Versions" };

export default async function VersionsPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <VersionHistory workflowId={id} />;
}
