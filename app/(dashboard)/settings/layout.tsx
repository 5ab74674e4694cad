import type { ReactNode } from "react";
import { PageHead } from "@/components/shell/page-head";
import { Tabs } from "@/components/shell/tabs";

export default function SettingsLayout({ children }: { children: ReactNode }) {
  return (
    <div className="page">
      <PageHead
        title="Settings"
        description="Workspace members, access, secrets, integrations, policies and quotas."
      />
      <Tabs
        label="Settings sections"
        items={[
          { href: "/settings/general", label: "General" },
          { href: "/settings/members", label: "Members" },
          { href: "/settings/api-tokens", label: "API tokens" },
          { href: "/settings/secrets", label: "Secrets" },
          { href: "/settings/integrations", label: "Integrations" },
          { href: "/settings/policies", label: "Policies" },
          { href: "/settings/quotas", label: "Quotas" },
        ]}
      />
      {children}
    </div>
  );
}
