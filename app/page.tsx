import { redirect } from "next/navigation";
import { getServerSession } from "next-auth";
import { getAuthOptions } from "@/server/auth/options";

export const dynamic = "force-dynamic";

export default async function Home() {
  const session = await getServerSession(getAuthOptions());
  redirect(session ? "/workflows" : "/sign-in");
}
