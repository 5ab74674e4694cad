import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { contextFromSession } from "@/server/context";
import { securedRoute } from "@/server/http/security-headers";
import { responseMeta } from "@/server/trpc/init";
import { appRouter } from "@/server/trpc/root";

export const dynamic = "force-dynamic";

const handler = securedRoute((req: Request) =>
  fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: async () => ({ svc: await contextFromSession(req) }),
    responseMeta,
  }),
);

export { handler as GET, handler as POST };
