/**
 * Repository context (SPEC §3): a workflow may pin its runs to a git repository at a ref. These
 * are the literal-syntax rules for the URL and the ref, shared by the definition schema, the run
 * start override and the server (which adds the network checks: DNS and private addresses).
 * Git parses URLs and refs permissively — `ext::sh -c …` runs a command, `-oProxyCommand=…`
 * becomes an ssh option — so only the shapes listed here are accepted.
 */
import { z } from "zod";
import { SecretName } from "./primitives";

export type RepositoryUrlKind = "https" | "ssh" | "file";

export interface ParsedRepositoryUrl {
  kind: RepositoryUrlKind;
  /** Network host (https, ssh), without IPv6 brackets. */
  host?: string;
  port?: number;
}

const ALLOWED =
  "https://host/path, ssh://host/path (or user@host:path), file:///absolute/path or an absolute local path";
// `<transport>::<address>` makes git run a remote helper (`ext::` runs an arbitrary command).
const TRANSPORT_HELPER = /^[A-Za-z][A-Za-z0-9+.-]*::/;
const SCP_LIKE = /^(?:([^@/:\s]+)@)?(\[[0-9A-Fa-f:.]+\]|[^@/:\s[\]]+):(.+)$/;
const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

function hostProblem(host: string): string | null {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (!bare) return "The repository URL has no host.";
  if (bare.startsWith("-")) return `The repository host "${bare}" must not start with "-".`;
  if (host.startsWith("[") ? !/^[0-9A-Fa-f:.]+$/.test(bare) : !HOST.test(bare))
    return `"${bare}" is not a valid host name.`;
  return null;
}

/** The URL's kind and host, or a sentence saying why it is refused. */
export function parseRepositoryUrl(
  url: string,
): { ok: true; value: ParsedRepositoryUrl } | { ok: false; message: string } {
  const no = (message: string) => ({ ok: false as const, message });
  if (!url) return no("The repository URL is empty.");
  if (url.startsWith("-"))
    return no('The repository URL must not start with "-" (git would read it as an option).');
  if (TRANSPORT_HELPER.test(url))
    return no(
      `Git transport helpers ("${url.slice(0, url.indexOf("::") + 2)}") are not allowed; use ${ALLOWED}.`,
    );
  if (/[\s\u0000-\u001f\u007f]/.test(url))
    return no("The repository URL must not contain spaces or control characters.");
  if (url.startsWith("/")) return { ok: true, value: { kind: "file" } };
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(url)?.[1]?.toLowerCase();
  if (!scheme) {
    const scp = SCP_LIKE.exec(url);
    if (!scp) return no(`"${url}" is not a repository URL; use ${ALLOWED}.`);
    if (scp[1]?.startsWith("-")) return no('The repository user must not start with "-".');
    const problem = hostProblem(scp[2]!);
    if (problem) return no(problem);
    return { ok: true, value: { kind: "ssh", host: scp[2]!.replace(/^\[|\]$/g, "") } };
  }
  if (!["https", "ssh", "file"].includes(scheme)) {
    return no(
      scheme === "http"
        ? "Plain http:// repositories are not allowed (credentials and code would travel unencrypted); use https://."
        : `The "${scheme}://" scheme is not allowed; use ${ALLOWED}.`,
    );
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return no(`"${url}" is not a valid URL.`);
  }
  if (scheme === "file") {
    if (parsed.host && parsed.host !== "localhost")
      return no("file:// repository URLs must be local (file:///absolute/path).");
    return { ok: true, value: { kind: "file" } };
  }
  if (parsed.password)
    return no(
      "The repository URL must not contain a password; name a workspace secret in credentialsSecret.",
    );
  if (decodeURIComponent(parsed.username).startsWith("-"))
    return no('The repository user must not start with "-".');
  // new URL() accepts hosts git's own parser reads differently; check the raw authority too.
  const authority = url.slice(scheme.length + 3).split(/[/?#]/)[0]!;
  const hostPart = authority.slice(authority.lastIndexOf("@") + 1).replace(/:\d+$/, "");
  const problem = hostProblem(hostPart);
  if (problem) return no(problem);
  return {
    ok: true,
    value: {
      kind: scheme as RepositoryUrlKind,
      host: parsed.hostname.replace(/^\[|\]$/g, ""),
      ...(parsed.port ? { port: Number(parsed.port) } : {}),
    },
  };
}

export function repositoryUrlProblem(url: string): string | null {
  const r = parseRepositoryUrl(url);
  return r.ok ? null : r.message;
}

/** A branch, tag or commit, in the subset of `git check-ref-format` that cannot be an option. */
export function repositoryRefProblem(ref: string): string | null {
  if (!ref) return "The ref is empty; name a branch, tag or commit.";
  if (ref.startsWith("-")) return `The ref "${ref}" must not start with "-".`;
  if (/[\s\u0000-\u001f\u007f~^:?*[\\]/.test(ref) || ref.includes("..") || ref.includes("@{"))
    return `"${ref}" is not a valid git ref (no spaces, "..", "@{" or any of ~^:?*[\\).`;
  if (ref.startsWith("/") || ref.endsWith("/") || ref.endsWith(".") || ref.endsWith(".lock"))
    return `"${ref}" is not a valid git ref.`;
  return null;
}

/** A full commit id: the ref is used as is (still checked to exist). */
export function isCommitSha(ref: string): boolean {
  return /^[0-9a-f]{40}$/.test(ref);
}

function ruled(problem: (value: string) => string | null) {
  return (value: string, ctx: z.RefinementCtx) => {
    const message = problem(value);
    if (message) ctx.addIssue({ code: "custom", message });
  };
}

export const RepositoryUrl = z
  .string()
  .max(2048)
  .superRefine(ruled(repositoryUrlProblem))
  .describe(
    "Git repository: https://…, ssh://… or user@host:path, file:///… or an absolute local path.",
  );
export const RepositoryRef = z
  .string()
  .max(256)
  .superRefine(ruled(repositoryRefProblem))
  .describe("Branch, tag or commit SHA; resolved to a commit when each run starts.");

export const RepositorySpec = z
  .strictObject({
    url: RepositoryUrl,
    ref: RepositoryRef,
    credentialsSecret: SecretName.optional().describe(
      "Workspace secret holding an https token (or user:token) or an ssh private key.",
    ),
  })
  .describe(
    "Repository context: each run pins the ref to a commit before step 1; script steps run in a read-only checkout of it.",
  );
export type RepositorySpec = z.infer<typeof RepositorySpec>;

/** What a manual run may override: the ref, or the URL and the ref. */
export const RepositoryOverride = z.strictObject({
  url: RepositoryUrl.optional(),
  ref: RepositoryRef,
});
export type RepositoryOverride = z.infer<typeof RepositoryOverride>;

/** What a run pins (SPEC §5): the URL and ref it asked for and the commit they resolved to. */
export interface RunRepository {
  url: string;
  ref: string;
  sha: string | null;
}
