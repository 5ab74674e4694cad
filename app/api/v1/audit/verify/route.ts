import { endpoint, routeMethods } from "@/server/http/endpoint";
import { verifyHistoryOp } from "@/server/http/operations/audit";
import { verifyHistory } from "@/server/services/history/verify-history";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  GET: endpoint(verifyHistoryOp, async ({ ctx, query }) => {
    const { anchorSeq, anchorHash } = query;
    // Both or neither: the service refuses half an anchor with the field named.
    const anchor =
      anchorSeq === undefined && anchorHash === undefined
        ? undefined
        : { seq: anchorSeq, hash: anchorHash };
    return verifyHistory({ ctx, input: anchor ? { anchor } : {} });
  }),
});
