import "server-only";
import { eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { users } from "@/db/schema";
import { SignInInput } from "@/lib/schemas/auth";
import { dummyPasswordHash, verifyPassword } from "../../auth/password";

/**
 * Email + password check for the sign-in provider. Unknown emails cost the same time as wrong
 * passwords (a dummy hash is verified) so the response time does not reveal which accounts exist.
 */
export async function verifyCredentials(
  db: Db,
  input: unknown,
): Promise<{ id: string; email: string; name: string } | null> {
  const parsed = SignInInput.safeParse(input);
  if (!parsed.success) return null;
  const [user] = await db.select().from(users).where(eq(users.email, parsed.data.email)).limit(1);
  const hash = user?.passwordHash ?? (await dummyPasswordHash());
  const ok = await verifyPassword(parsed.data.password, hash);
  if (!ok || !user?.passwordHash) return null;
  return { id: user.id, email: user.email, name: user.name };
}
