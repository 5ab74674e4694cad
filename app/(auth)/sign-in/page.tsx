import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/auth/sign-in-form";
import { authPageInfo } from "@/server/page-context";
import auth from "@/components/auth/auth.module.css";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Sign in" };

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | undefined>>;
}) {
  const sp = await searchParams;
  const info = await authPageInfo();
  const callbackUrl = safeCallback(sp.callbackUrl);
  if (info.signedIn) redirect(callbackUrl);
  if (info.signUpMode === "first") redirect("/sign-up");
  return (
    <main id="main" className={auth.wrap}>
      <SignInForm
        callbackUrl={callbackUrl}
        githubEnabled={info.githubEnabled}
        canSignUp={info.signUpMode === "open"}
        error={sp.error}
      />
    </main>
  );
}

/** Only same-origin paths: an open redirect would let a link send users anywhere after sign-in. */
function safeCallback(v: string | undefined): string {
  return v && v.startsWith("/") && !v.startsWith("//") ? v : "/workflows";
}
