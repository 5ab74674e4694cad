import "server-only";
import type { ServiceContext } from "../context";

/** The user behind the actor (a token acts for its creator); null for system actors. */
export function actingUserId(ctx: ServiceContext): string | null {
  return ctx.actor.type === "user" || ctx.actor.type === "token" ? ctx.actor.userId : null;
}
