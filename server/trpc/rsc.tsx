import "server-only";
import { dehydrate, HydrationBoundary } from "@tanstack/react-query";
import { createTRPCOptionsProxy, type TRPCQueryOptions } from "@trpc/tanstack-react-query";
import { cache, type ReactNode } from "react";
import { makeQueryClient } from "@/lib/trpc/query-client";
import { contextFromSession } from "../context";
import { appRouter } from "./root";

/** Server-component prefetching: `prefetch(trpc.x.queryOptions())` then `<HydrateClient>`. */
export const getQueryClient = cache(makeQueryClient);
const createContext = cache(async () => ({ svc: await contextFromSession() }));

export const trpc = createTRPCOptionsProxy({
  ctx: createContext,
  router: appRouter,
  queryClient: getQueryClient,
});

export function HydrateClient({ children }: { children: ReactNode }) {
  return <HydrationBoundary state={dehydrate(getQueryClient())}>{children}</HydrationBoundary>;
}

/**
 * Starts fetching on the server. Not awaited, the query reaches the client still pending, and a
 * `useQuery` page then renders "loading" on the server but the data at hydration (a mismatch):
 * await it where the page renders the data itself (never rejects; errors refetch on the client).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- mirrors the library's own signature
export function prefetch<T extends ReturnType<TRPCQueryOptions<any>>>(
  queryOptions: T,
): Promise<void> {
  return getQueryClient().prefetchQuery(queryOptions);
}
