import type { Role } from "@/lib/schemas/roles";
import { apiRoute, errorResponse, type ApiArgs } from "@/server/http/api";
import { PROPOSAL_HTTP_STATUS, ProposalError } from "@/server/services/proposals/errors";

/**
 * apiRoute for proposal routes: a proposal refusal answers with its own status and code
 * (`409 stale_base`, `410 expired`, `403 self_review`, … — docs/proposals.md) instead of the
 * generic domain mapping; everything else goes through apiRoute unchanged.
 */
export function proposalRoute<P extends Record<string, string>>(
  opts: { minRole: Role },
  handler: (args: ApiArgs<P>) => Promise<unknown>,
) {
  return apiRoute<P>(opts, async (args) => {
    try {
      return await handler(args);
    } catch (e) {
      if (!(e instanceof ProposalError)) throw e;
      return errorResponse(
        PROPOSAL_HTTP_STATUS[e.reason],
        e.reason.toLowerCase(),
        e.message,
        e.details,
      );
    }
  });
}
