import type { ReactNode } from "react";
import { redirect } from "next/navigation";
import { Shell } from "@/components/shell/shell";
import { NoWorkspace } from "@/components/shell/no-workspace";
import { getSession, requirePageContext } from "@/server/page-context";
import { getMe } from "@/server/services/me/get-me";

export const dynamic = "force-dynamic";

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const ctx = await requirePageContext("/workflows");
  // A workspace requires two-factor and this password sign-in has none: enrol before anything.
  if ((await getSession())?.twoFactorEnrolRequired) redirect("/account/two-factor");
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
