import type { Metadata } from "next";
import Link from "next/link";
import { AcceptInvitation } from "@/components/auth/accept-invitation";
import { SignUpForm } from "@/components/auth/sign-up-form";
import { DomainError, TooManyAttemptsError } from "@/server/errors";
import { contextFromSession } from "@/server/context";
import { getInvitation } from "@/server/services/invitations/get-invitation";
import { getMe } from "@/server/services/me/get-me";
import auth from "@/components/auth/auth.module.css";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Invitation" };

export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const ctx = await contextFromSession();
  let invitation: Awaited<ReturnType<typeof getInvitation>> | undefined;
  let throttled: string | undefined;
  try {
    invitation = await getInvitation({ ctx, input: { token } });
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
    if (e instanceof TooManyAttemptsError) throttled = e.message;
  }
  const signedInAs = ctx.actor.type === "user" ? (await getMe({ ctx })).user.email : undefined;

  let content: React.ReactNode;
  if (throttled) {
    content = <Message title="Too many attempts">{throttled}</Message>;
  } else if (!invitation) {
    content = (
      <Message title="Invitation not found">
        This invitation link is not valid. Ask for a new one.
      </Message>
    );
  } else if (invitation.status !== "open") {
    content = (
      <Message title={`Invitation ${invitation.status}`}>
        This invitation can no longer be used. Ask {invitation.invitedByName} for a new one.
      </Message>
    );
  } else if (signedInAs) {
    content = (
      <AcceptInvitation
        token={token}
        workspaceName={invitation.workspaceName}
        role={invitation.role}
        invitedBy={invitation.invitedByName}
        invitedEmail={invitation.email}
        signedInAs={signedInAs}
      />
    );
  } else if (invitation.hasAccount) {
    content = (
      <Message title={`Join ${invitation.workspaceName}`}>
        Sign in as {invitation.email} to accept.{" "}
        <Link
          className="btn btn-primary"
          href={`/sign-in?callbackUrl=${encodeURIComponent(`/invite/${token}`)}`}
        >
          Sign in
        </Link>
      </Message>
    );
  } else {
    content = (
      <SignUpForm
        mode="invite"
        invitation={{ token, email: invitation.email, workspaceName: invitation.workspaceName }}
      />
    );
  }
  return (
    <main id="main" className={auth.wrap}>
      {content}
    </main>
  );
}

function Message({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <div className={`card ${auth.card}`}>
      <div className="card-body stack">
        <h1>{title}</h1>
        <p className="muted">{children}</p>
      </div>
    </div>
  );
}
