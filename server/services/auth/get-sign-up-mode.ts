import "server-only";
import { sql } from "drizzle-orm";
import { execRows } from "@/db/client";
import type { ServiceContext } from "../context";

export type SignUpMode = "first" | "open" | "invite";

/** Whether the sign-up page offers a form: to the very first user, or to anyone when open. */
export async function getSignUpMode({ ctx }: { ctx: ServiceContext }): Promise<SignUpMode> {
  const [row] = await execRows<{ any: boolean }>(
    ctx.db,
    sql`select exists(select 1 from users) as any`,
  );
  if (!row?.any) return "first";
  return ctx.config.openSignup ? "open" : "invite";
}
