import type { ReactNode } from "react";
import { SettingsTabs } from "@/components/settings/settings-tabs";
import { PageHead } from "@/components/shell/page-head";

export default function SettingsLayout({ children }: { children: ReactNode }) {
  return (
    <div className="page">
      <PageHead
        title="Settings"
        description="Workspace members, access, secrets, integrations, policies, quotas and the audit log."
      />
      <SettingsTabs />
      {children}
    </div>
  );
}
