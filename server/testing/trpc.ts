import { TRPCError } from "@trpc/server";

/** The TRPCError a call was refused with; anything else (success, another error) fails the test. */
export async function trpcRefusal(p: Promise<unknown>): Promise<TRPCError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof TRPCError) return e;
    throw e;
  }
  throw new Error("expected the call to be refused with a TRPCError");
}
