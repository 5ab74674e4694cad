import "server-only";
import type { Queryable } from "@/db/client";
import { readRawSettings } from "../settings/read-settings";

/** The version a new run pins (create-run.ts `pinVersion`). */
export interface PinnedVersion {
  workflowId: string | null;
  id: string | null;
  version: string;
  hash: string;
}

/**
 * Reads shared by the runs one transaction creates in a batch (the webhook admitter): each
 * workflow's pinned version and each workspace's settings are read once per batch instead of once
 * per run, as if the whole batch were created at its first read. Only successful reads are kept:
 * a refusal (a disabled workflow) is read again, and worded, for every run it refuses.
 */
export class RunBatchCache {
  private readonly pins = new Map<string, PinnedVersion>();
  private readonly settings = new Map<string, Record<string, unknown>>();

  async pin(key: string, load: () => Promise<PinnedVersion>): Promise<PinnedVersion> {
    const hit = this.pins.get(key);
    if (hit) return hit;
    const pinned = await load();
    this.pins.set(key, pinned);
    return pinned;
  }

  /** `workspaces.settings` (raw), as readRawSettings returns it. */
  async workspaceSettings(tx: Queryable, workspaceId: string): Promise<Record<string, unknown>> {
    const hit = this.settings.get(workspaceId);
    if (hit) return hit;
    const settings = await readRawSettings(tx, workspaceId);
    this.settings.set(workspaceId, settings);
    return settings;
  }
}
