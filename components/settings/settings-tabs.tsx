"use client";
import { useRole } from "@/components/shell/role-context";
import { Tabs } from "@/components/shell/tabs";

const SECTIONS = [
  { href: "/settings/general", label: "General" },
  { href: "/settings/members", label: "Members" },
  { href: "/settings/api-tokens", label: "API tokens" },
  { href: "/settings/secrets", label: "Secrets" },
  { href: "/settings/integrations", label: "Integrations" },
  { href: "/settings/policies", label: "Policies" },
  { href: "/settings/proposal-rules", label: "Proposal rules" },
  { href: "/settings/quotas", label: "Quotas" },
  { href: "/settings/alerts", label: "Alerts" },
];

/** The settings sections; Audit only for admins and above (the server refuses others anyway). */
export function SettingsTabs() {
  const { can } = useRole();
  const items = can("admin")
    ? [...SECTIONS, { href: "/settings/audit", label: "Audit" }]
    : SECTIONS;
  return <Tabs label="Settings sections" items={items} />;
}
