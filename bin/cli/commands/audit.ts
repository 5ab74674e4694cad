import { intFlag, str } from "../args";
import { connect, type Command } from "../command";
import { usageError } from "../errors";
import { EXIT } from "../exit-codes";
import { printEnvelope } from "../io";

interface Verification {
  ok: boolean;
  checked: number;
  pruned: number;
  head: { seq: number; hash: string };
  firstBroken: {
    seq: number;
    kind: string;
    rowId: string;
    problem: string;
    message: string;
  } | null;
  verifiedAt: string;
}

export const auditCommand: Command = {
  name: "audit",
  summary: "Verify the workspace's tamper-evident history (audit verify)",
  help: `Usage: sluice audit verify [--anchor-seq <n> --anchor-hash <sha256:…>]

Recomputes the workspace's history chain (GET /api/v1/audit/verify: published versions,
proposal reviews and applies, approval decisions and audit rows) from the rows' current
content and prints { ok, checked, pruned, head, firstBroken, verifiedAt }. firstBroken names
the first broken link: seq, kind, rowId, problem (content_changed, row_missing, link_broken,
seq_gap, head_mismatch, anchor_mismatch) and a message. Keep the printed head: passing it
later as --anchor-seq/--anchor-hash checks the chain still contains it unchanged.
Needs an admin token.

Exit codes: 0 the chain verifies, 20 it does not (or the token was refused), 30 not an admin,
40 server unreachable.

Examples:
  sluice audit verify
  sluice audit verify | jq '.firstBroken'
  sluice audit verify --anchor-seq 1200 --anchor-hash sha256:3f…`,
  options: { "anchor-seq": { type: "string" }, "anchor-hash": { type: "string" } },
  maxPositionals: 1,
  async run({ values, positionals }) {
    if (positionals[0] !== "verify")
      throw usageError("Say what to do: sluice audit verify [--anchor-seq <n> --anchor-hash <h>]");
    const anchorSeq = intFlag("anchor-seq", values["anchor-seq"], {
      min: 1,
      max: Number.MAX_SAFE_INTEGER,
    });
    const anchorHash = str(values, "anchor-hash");
    if ((anchorSeq === undefined) !== (anchorHash === undefined))
      throw usageError(
        "Give both --anchor-seq and --anchor-hash (a head printed by an earlier verify)",
      );
    const api = connect();
    const result = await api.get<Verification>("/audit/verify", { anchorSeq, anchorHash });
    printEnvelope({ ...result });
    // A broken chain is a failed contract: scripts and CI can stop on it.
    return result.ok ? EXIT.ok : EXIT.contract;
  },
};
