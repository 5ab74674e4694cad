import type { Metadata } from "next";
import { Suspense } from "react";
import { AuditLog } from "@/components/settings/audit-log";
import { HistoryVerify } from "@/components/settings/history-verify";
import { LoadingRows } from "@/components/ui/states";

export const metadata: Metadata = { title: "Audit log" };

export default function AuditPage() {
  return (
    <>
      <HistoryVerify />
      <Suspense fallback={<LoadingRows rows={5} label="Loading audit log" />}>
        <AuditLog />
      </Suspense>
    </>
  );
}
