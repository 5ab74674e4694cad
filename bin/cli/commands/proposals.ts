import { connect, type Command } from "../command";
import { usageError } from "../errors";
import { EXIT } from "../exit-codes";
import { printEnvelope } from "../io";

interface ProposalReplay {
  proposalId: string;
  verification: { level: "verified" | "partial" | "unproven"; reasons: string[] };
  [key: string]: unknown;
}

export const proposalsCommand: Command = {
  name: "proposals",
  summary: "A proposal's replay evidence, verification level and in-flight impact",
  help: `Usage: sluice proposals replay <proposal-id> [--require-verified]
       sluice proposals impact <proposal-id>

Prints the engine's evidence for a change proposal (GET /api/v1/proposals/{id}/replay):
recent real runs of the base version, and shadow runs that finished while it was open,
replayed on the proposed definition with every side effect served from the original run's
recording (never executed). Each run has an outcome (same_outcome, different_outcome,
cannot_tell) and per step a verdict (same, different_output with a JSON diff,
different_path, unverified with its reason); verification.level is verified, partial or
unproven, with its reasons.

--require-verified  exit 20 unless the level is verified (for scripts and CI).

"impact" prints what applying would touch (GET /api/v1/proposals/{id}/impact): the runs in
flight on the base version (they finish on their pinned version) and the enabled triggers
that start the new version from then on.

Exit codes: 0 printed (and verified, with --require-verified), 20 not verified or refused,
30 no access, 40 server unreachable.

Examples:
  sluice proposals replay prop_123
  sluice proposals replay prop_123 | jq '.verification'
  sluice proposals replay prop_123 --require-verified && echo safe to apply
  sluice proposals impact prop_123 | jq '.inFlight'`,
  options: { "require-verified": { type: "boolean" } },
  maxPositionals: 2,
  async run({ values, positionals }) {
    const [what, id] = positionals;
    if ((what !== "replay" && what !== "impact") || !id)
      throw usageError("Say what and which proposal: sluice proposals replay|impact <proposal-id>");
    const api = connect();
    if (what === "impact") {
      printEnvelope({ ...(await api.get(`/proposals/${encodeURIComponent(id)}/impact`)) });
      return EXIT.ok;
    }
    const result = await api.get<ProposalReplay>(`/proposals/${encodeURIComponent(id)}/replay`);
    printEnvelope({ ...result });
    if (values["require-verified"] === true && result.verification.level !== "verified")
      return EXIT.contract;
    return EXIT.ok;
  },
};
