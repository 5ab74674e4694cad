"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { signOut, useSession } from "next-auth/react";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useEffect, useState, type ReactNode } from "react";
import {
  Activity,
  BookOpen,
  CheckCircle,
  GitPullRequest,
  Inbox,
  Menu,
  Play,
  Plus,
  Search,
  Settings,
  Workflow,
  X,
  type LucideIcon,
} from "lucide-react";
import { useTRPC } from "@/lib/trpc/client";
import { useToast } from "@/components/ui/toast";
import { CommandPalette } from "@/components/command-palette/command-palette";
import { NewWorkspaceDialog } from "./new-workspace-dialog";
import { enterWorkspace } from "./enter-workspace";
import { SkipToCanvas } from "./skip-links";
import styles from "./shell.module.css";
import { RoleProvider } from "./role-context";
import { hasRole, type Role } from "@/lib/schemas/roles";
import { MY_APPROVALS_INPUT, MY_TASKS_INPUT } from "@/components/queue/my-queue";

type Ws = { id: string; name: string; role: Role };

const NAV: { href: string; label: string; icon: LucideIcon; minRole?: Role }[] = [
  { href: "/workflows", label: "Workflows", icon: Workflow },
  { href: "/runs", label: "Runs", icon: Play },
  { href: "/queue", label: "My queue", icon: Inbox },
  { href: "/approvals", label: "Approvals", icon: CheckCircle },
  { href: "/proposals", label: "Proposals", icon: GitPullRequest },
  { href: "/operations", label: "Operations", icon: Activity, minRole: "admin" },
  { href: "/settings", label: "Settings", icon: Settings },
  { href: "/api-docs", label: "API", icon: BookOpen },
];

export function Shell({
  user,
  workspaces,
  current,
  children,
}: {
  user: { name: string; email: string };
  workspaces: Ws[];
  current: Ws;
  children: ReactNode;
}) {
  const pathname = usePathname();
  const trpc = useTRPC();
  const toast = useToast();
  const { update } = useSession();
  const switchWs = useMutation(trpc.workspace.switch.mutationOptions());
  const [creating, setCreating] = useState(false);
  const [paletteOpen, setPaletteOpen] = useState(false);
  // On a phone the sidebar is a top bar whose menu button shows the rest; a navigation closes it.
  const [menuOpen, setMenuOpen] = useState(false);
  const [menuPath, setMenuPath] = useState(pathname);
  if (menuPath !== pathname) {
    setMenuPath(pathname);
    setMenuOpen(false);
  }
  useEffect(() => {
    function onKey(e: KeyboardEvent) {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === "k") {
        // Also inside inputs and Monaco: only the browser's and Monaco's own Ctrl+K chords are lost.
        e.preventDefault();
        setPaletteOpen((o) => !o);
      }
    }
    window.addEventListener("keydown", onKey, { capture: true });
    return () => window.removeEventListener("keydown", onKey, { capture: true });
  }, []);
  const pendingApprovals = useQuery({
    ...trpc.approval.list.queryOptions(MY_APPROVALS_INPUT),
    // Decisions made here invalidate it at once; this bounds the lag for gates opened or
    // decided elsewhere (another person, the API, a signed link).
    refetchInterval: 5_000,
  });
  const pendingCount = pendingApprovals.data?.length ?? 0;
  const myTasks = useQuery({
    ...trpc.task.list.queryOptions(MY_TASKS_INPUT),
    refetchInterval: 5_000,
  });
  const queueCount = (myTasks.data?.items.length ?? 0) + pendingCount;
  const proposalCounts = useQuery({
    ...trpc.proposal.counts.queryOptions(),
    // Like the approvals badge: proposals reviewed elsewhere leave the count within seconds.
    refetchInterval: 5_000,
  });
  const pendingProposals = proposalCounts.data?.pendingReview ?? 0;

  async function onSwitch(id: string) {
    try {
      await switchWs.mutateAsync({ workspaceId: id });
      await update({ workspaceId: id });
      enterWorkspace();
    } catch (e) {
      toast((e as Error).message, "error");
    }
  }

  return (
    <RoleProvider role={current.role}>
      <div className={styles.shell}>
        {/^\/workflows\/[^/]+\/edit$/.test(pathname) ? <SkipToCanvas /> : null}
        <aside className={styles.sidebar} aria-label="Main">
          <div className={styles.bar}>
            <div className={styles.brand}>
              <span className={styles.brandMark} aria-hidden /> Sluice
            </div>
            <button
              type="button"
              className={`btn btn-ghost ${styles.menuButton}`}
              aria-expanded={menuOpen}
              aria-controls="app-menu"
              onClick={() => setMenuOpen((o) => !o)}
            >
              {menuOpen ? <X aria-hidden size={20} /> : <Menu aria-hidden size={20} />}
              Menu
              {queueCount > 0 ? (
                // The nav inside the menu names the count; here it is only a hint to open it.
                <span className="badge badge-warn" aria-hidden>
                  {queueCount}
                </span>
              ) : null}
            </button>
          </div>
          <div id="app-menu" className={styles.menu} data-open={menuOpen || undefined}>
            <button
              type="button"
              className={`btn btn-sm ${styles.paletteButton}`}
              aria-keyshortcuts="Control+K Meta+K"
              aria-haspopup="dialog"
              onClick={() => setPaletteOpen(true)}
            >
              <Search aria-hidden size={14} />
              <span className="grow">Search or jump to…</span>
              <kbd className={styles.kbd}>Ctrl K</kbd>
            </button>
            <div className={styles.workspace}>
              <label htmlFor="ws-switch" className="sr-only">
                Workspace
              </label>
              {workspaces.length > 1 ? (
                <select
                  id="ws-switch"
                  value={current.id}
                  onChange={(e) => onSwitch(e.target.value)}
                  disabled={switchWs.isPending}
                >
                  {workspaces.map((w) => (
                    <option key={w.id} value={w.id}>
                      {w.name}
                    </option>
                  ))}
                </select>
              ) : (
                <div className={`${styles.user} ${styles.workspaceName}`} title={current.name}>
                  {current.name}
                </div>
              )}
              <button
                type="button"
                className={`btn btn-sm btn-ghost ${styles.quiet}`}
                onClick={() => setCreating(true)}
              >
                <Plus aria-hidden size={14} /> New workspace
              </button>
            </div>
            <nav className={styles.nav}>
              {NAV.filter((n) => !n.minRole || hasRole(current.role, n.minRole)).map((n) => (
                <Link
                  key={n.href}
                  href={n.href}
                  aria-current={
                    pathname === n.href || pathname.startsWith(n.href + "/") ? "page" : undefined
                  }
                >
                  <n.icon aria-hidden size={16} className={styles.navIcon} />
                  {n.label}
                  {n.href === "/approvals" && pendingCount > 0 ? (
                    <span
                      className="badge badge-warn"
                      aria-label={`${pendingCount} pending`}
                      data-testid="approvals-badge"
                    >
                      {pendingCount}
                    </span>
                  ) : null}
                  {n.href === "/queue" && queueCount > 0 ? (
                    <span
                      className="badge badge-warn"
                      aria-label={`${queueCount} waiting for you`}
                      data-testid="queue-badge"
                    >
                      {queueCount}
                    </span>
                  ) : null}
                  {n.href === "/proposals" && pendingProposals > 0 ? (
                    <span
                      className="badge badge-warn"
                      aria-label={`${pendingProposals} awaiting review`}
                      data-testid="proposals-badge"
                    >
                      {pendingProposals}
                    </span>
                  ) : null}
                </Link>
              ))}
            </nav>
            <div className={styles.foot}>
              <div className={styles.user} title={user.email}>
                {user.name} · <span>{current.role}</span>
              </div>
              {/* Not prefetched: with a prefetched /account, a workspace switch rendered the old
                  workspace (auth.spec "switch between them" failed every time). */}
              <Link
                href="/account"
                prefetch={false}
                className={`btn btn-sm btn-ghost ${styles.quiet}`}
                aria-current={pathname === "/account" ? "page" : undefined}
              >
                Account
              </Link>
              <button
                type="button"
                className="btn btn-sm"
                onClick={() => signOut({ callbackUrl: "/sign-in" })}
              >
                Sign out
              </button>
            </div>
          </div>
        </aside>
        <NewWorkspaceDialog open={creating} onClose={() => setCreating(false)} />
        <CommandPalette
          open={paletteOpen}
          onOpenChange={setPaletteOpen}
          onSignOut={() => signOut({ callbackUrl: "/sign-in" })}
        />
        {/* tabIndex -1: the skip link focuses it, so the next Tab starts inside the page. */}
        <main id="main" className={styles.main} tabIndex={-1}>
          {children}
        </main>
      </div>
    </RoleProvider>
  );
}
