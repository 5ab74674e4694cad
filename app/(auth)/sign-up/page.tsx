import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { SignUpForm } from "@/components/auth/sign-up-form";
import { authPageInfo } from "@/server/page-context";
import auth from "@/components/auth/auth.module.css";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Create account" };

export default async function SignUpPage() {
  const info = await authPageInfo();
  if (info.signedIn) redirect("/workflows");
  return (
    <main id="main" className={auth.wrap}>
      {info.signUpMode === "invite" ? (
        <div className={`card ${auth.card}`}>
          <div className="card-body stack">
            <h1>Invitation only</h1>
            <p className="muted">
              This Sluice accepts new accounts by invitation. Ask a workspace admin for an
              invitation link, or <Link href="/sign-in">sign in</Link>.
            </p>
          </div>
        </div>
      ) : (
        <SignUpForm mode={info.signUpMode} />
      )}
    </main>
  );
}
