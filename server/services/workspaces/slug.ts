import { randomBytes } from "node:crypto";

/** A URL-safe slug with a short random suffix, so two "Acme" workspaces never collide. */
export function workspaceSlug(name: string): string {
  const base = name
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);
  return `${base || "workspace"}-${randomBytes(3).toString("hex")}`;
}
