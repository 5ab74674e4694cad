import "server-only";
import type { Queryable } from "@/db/client";
import type { AlertChannels } from "@/lib/schemas/alerts";
import { requireSecretExists } from "../settings/require-secret-exists";

/** Saving a channel that names a missing secret is refused up front, naming the channel. */
export async function requireChannelSecrets(
  tx: Queryable,
  workspaceId: string,
  channels: AlertChannels | null,
): Promise<void> {
  for (const [i, c] of (channels ?? []).entries()) {
    if (c.kind === "slack" || c.kind === "webhook")
      await requireSecretExists(tx, workspaceId, c.secret, ["channels", String(i), "secret"]);
  }
}
