/**
 * What the command palette lists for a query: the server's matches (workflows, runs) first, so
 * Enter on a typed name or id jumps there, then the app's actions whose label or keywords match.
 * Pure, so the grouping and ranking are unit-tested apart from cmdk and the network.
 */

export type PaletteAction = {
  key: string;
  label: string;
  /** Extra words the action answers to ("create" finds "New workflow"). */
  keywords?: string[];
} & ({ href: string } | { command: "sign-out" });

export const ACTIONS: readonly PaletteAction[] = [
  {
    key: "new-workflow",
    label: "New workflow",
    keywords: ["create", "add"],
    href: "/workflows/new",
  },
  { key: "workflows", label: "Go to workflows", href: "/workflows" },
  { key: "runs", label: "Go to runs", keywords: ["history", "executions"], href: "/runs" },
  { key: "queue", label: "Go to my queue", keywords: ["tasks", "inbox"], href: "/queue" },
  { key: "approvals", label: "Go to approvals", keywords: ["gates", "review"], href: "/approvals" },
  {
    key: "proposals",
    label: "Go to proposals",
    keywords: ["changes", "review"],
    href: "/proposals",
  },
  {
    key: "settings",
    label: "Go to settings",
    keywords: ["workspace", "members", "secrets"],
    href: "/settings",
  },
  {
    key: "account",
    label: "Go to account",
    keywords: ["profile", "password", "two-factor"],
    href: "/account",
  },
  { key: "sign-out", label: "Sign out", keywords: ["log out", "logout"], command: "sign-out" },
];

export type SearchResults = {
  workflows: { id: string; name: string; slug: string }[];
  runs: { id: string; status: string; workflowName: string }[];
};

export type PaletteItem =
  | { key: string; label: string; hint?: string; href: string }
  | { key: string; label: string; hint?: string; command: "sign-out" };

export type PaletteGroup = { heading: string; items: PaletteItem[] };

/**
 * Actions matching every word of the query (in the label or keywords), those whose label
 * starts with the query's first word first, otherwise in catalog order. An empty query lists all.
 */
export function matchActions(query: string, actions: readonly PaletteAction[] = ACTIONS) {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...actions];
  const scored = actions.flatMap((a, index) => {
    const label = a.label.toLowerCase();
    const hay = [label, ...(a.keywords ?? [])].join(" ");
    if (!words.every((w) => hay.includes(w))) return [];
    const labelWords = label.split(/\s+/);
    const rank = labelWords.some((w) => w.startsWith(words[0]!)) ? 0 : 1;
    return [{ a, rank, index }];
  });
  return scored.sort((x, y) => x.rank - y.rank || x.index - y.index).map((s) => s.a);
}

/** The palette's groups for a query, empty groups left out. */
export function buildGroups(
  query: string,
  results: SearchResults | undefined,
  actions: readonly PaletteAction[] = ACTIONS,
): PaletteGroup[] {
  const groups: PaletteGroup[] = [];
  if (query.trim() && results) {
    groups.push({
      heading: "Workflows",
      items: results.workflows.map((w) => ({
        key: `workflow:${w.id}`,
        label: w.name,
        hint: w.slug,
        href: `/workflows/${w.id}`,
      })),
    });
    groups.push({
      heading: "Runs",
      items: results.runs.map((r) => ({
        key: `run:${r.id}`,
        label: `${r.workflowName} · ${r.id}`,
        hint: r.status,
        href: `/runs/${r.id}`,
      })),
    });
  }
  groups.push({
    heading: "Actions",
    items: matchActions(query, actions).map(({ keywords: _k, ...item }) => item),
  });
  return groups.filter((g) => g.items.length > 0);
}

/** The line shown when the server found nothing for a non-empty query. */
export function noMatchMessage(query: string) {
  return `No workflows or runs match "${query.trim()}"`;
}
