import type { ReactNode } from "react";
import { PageHead } from "@/components/shell/page-head";
import { Tabs } from "@/components/shell/tabs";

export default function SettingsLayout({ children }: { children: ReactNode }) {
  return (
    <div className="page">
      <PageHead title="Settings" description="Workspace members, access and configuration." />
      <Tabs
        label="Settings sections"
        items={[
          { href: "/settings/general", label: "General" },
          { href: "/settings/members", label: "Members" },
          { href: "/settings/api-tokens", label: "API tokens" },
        ]}
      />
      {children}
    </div>
  );
}
