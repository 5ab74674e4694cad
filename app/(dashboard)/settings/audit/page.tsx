import type { Metadata } from "next";
import { Suspense } from "react";
import { AuditLog } from "@/components/settings/audit-log";
import { LoadingRows } from "@/components/ui/states";

export const metadata: Metadata = { title: "Audit log" };

export default function AuditPage() {
  return (
    <Suspense fallback={<LoadingRows rows={5} label="Loading audit log" />}>
      <AuditLog />
    </Suspense>
  );
}
