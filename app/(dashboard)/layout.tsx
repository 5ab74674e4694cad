import type { ReactNode } from "react";
import { Shell } from "@/components/shell/shell";
import { NoWorkspace } from "@/components/shell/no-workspace";
import { requirePageContext } from "@/server/page-context";
import { getMe } from "@/server/services/me/get-me";

export const dynamic = "force-dynamic";

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const ctx = await requirePageContext("/workflows");
  const me = await getMe({ ctx });
  if (!me.currentWorkspace) return <NoWorkspace name={me.user.name} />;
  return (
    <Shell
      user={{ name: me.user.name, email: me.user.email }}
      workspaces={me.workspaces}
      current={me.currentWorkspace}
    >
      {children}
    </Shell>
  );
}
