/**
 * Calls one batched tRPC request may carry. The server refuses more (server/trpc/request-limits.ts)
 * and the client's batch link splits at the same number, so the app itself never hits the limit.
 */
export const MAX_TRPC_BATCH = 20;
