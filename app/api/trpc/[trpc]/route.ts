import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { MAX_TRPC_BATCH } from "@/lib/trpc/limits";
import { contextFromSession } from "@/server/context";
import { securedRoute } from "@/server/http/security-headers";
import { responseMeta } from "@/server/trpc/init";
import { limitTrpcRequest } from "@/server/trpc/request-limits";
import { appRouter } from "@/server/trpc/root";

export const dynamic = "force-dynamic";

const endpoint = "/api/trpc";

const handler = securedRoute(async (req: Request) => {
  const limited = await limitTrpcRequest(req, endpoint, appRouter);
  if (limited instanceof Response) return limited;
  return fetchRequestHandler({
    endpoint,
    req: limited,
    router: appRouter,
    createContext: async () => ({ svc: await contextFromSession(req) }),
    responseMeta,
    maxBatchSize: MAX_TRPC_BATCH,
  });
});

export { handler as GET, handler as POST };
