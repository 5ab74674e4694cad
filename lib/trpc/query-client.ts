import { defaultShouldDehydrateQuery, QueryClient } from "@tanstack/react-query";
import superjson from "superjson";

/** One factory for the browser and for server-component prefetching (superjson both ways). */
export function makeQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: { staleTime: 15_000, retry: (count, err) => count < 2 && !isClientError(err) },
      dehydrate: {
        serializeData: superjson.serialize,
        shouldDehydrateQuery: (q) => defaultShouldDehydrateQuery(q) || q.state.status === "pending",
      },
      hydrate: { deserializeData: superjson.deserialize },
    },
  });
}

function isClientError(err: unknown): boolean {
  const status = (err as { data?: { httpStatus?: number } } | null)?.data?.httpStatus;
  return typeof status === "number" && status >= 400 && status < 500;
}
