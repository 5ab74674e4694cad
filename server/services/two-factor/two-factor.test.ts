import { and, eq } from "drizzle-orm";
import { generate } from "otplib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, twoFactorRecoveryCodes, userTwoFactor, users } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import type { Role } from "@/lib/schemas/roles";
import { hashPassword } from "../../auth/password";
import {
  ConflictError,
  ForbiddenError,
  PreconditionFailedError,
  TooManyAttemptsError,
  ValidationError,
} from "../../errors";
import { createWorkspaceFixture, makeCtx, type WorkspaceFixture } from "../../testing/harness";
import { signInWithPassword } from "../auth/sign-in-with-password";
import type { ServiceContext } from "../context";
import { beginTwoFactorEnrolment } from "./begin-two-factor-enrolment";
import { confirmTwoFactorEnrolment } from "./confirm-two-factor-enrolment";
import { disableTwoFactor } from "./disable-two-factor";
import { getTwoFactorRequirement } from "./get-two-factor-requirement";
import { getTwoFactorStatus } from "./get-two-factor-status";
import { needsTwoFactorEnrolment } from "./needs-two-factor-enrolment";
import { regenerateRecoveryCodes } from "./regenerate-recovery-codes";
import { setTwoFactorRequirement } from "./set-two-factor-requirement";
import { SecondFactorError, verifySignInSecondFactor } from "./verify-sign-in-second-factor";

let t: TestDb;
let passwordHash: string;
const PASSWORD = "correct horse battery";

beforeAll(async () => {
  t = await createTestDb("two_factor");
  passwordHash = await hashPassword(PASSWORD);
});
afterAll(async () => {
  await t?.close();
});

/** Mid-step, so ±30 s lands in the neighbouring steps whatever the wall clock does. */
const T0 = new Date(Math.floor(Date.now() / 30_000) * 30_000 + 15_000);
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

interface Person {
  userId: string;
  email: string;
  fx: WorkspaceFixture;
  /** The person acting in their workspace at a given clock. */
  ctx(now?: Date): ServiceContext;
}

async function personWithPassword(role: Role = "editor", fx?: WorkspaceFixture): Promise<Person> {
  const ws = fx ?? (await createWorkspaceFixture(t.db, "TwoFactor"));
  const userId = await ws.addMember(role);
  const [u] = await t.db
    .update(users)
    .set({ passwordHash })
    .where(eq(users.id, userId))
    .returning({ email: users.email });
  return {
    userId,
    email: u!.email,
    fx: ws,
    ctx: (now = T0) =>
      makeCtx(t.db, { type: "user", userId }, { id: ws.workspaceId, role }, { now: () => now }),
  };
}

const code = (secret: string, now: Date) =>
  generate({ secret, epoch: Math.floor(now.getTime() / 1000) });

/** Enrols the person at T0 - 60 s (so T0's steps are still unused); returns secret and codes. */
async function enrolled(p: Person) {
  const started = await beginTwoFactorEnrolment({ ctx: p.ctx(at(-60)) });
  const secret = started.manualKey.replace(/\s+/g, "");
  const { recoveryCodes } = await confirmTwoFactorEnrolment({
    ctx: p.ctx(at(-60)),
    input: { code: await code(secret, at(-60)) },
  });
  return { secret, recoveryCodes };
}

const signIn = (p: Person, c: string | undefined, now = T0) =>
  verifySignInSecondFactor({ ctx: p.ctx(now), input: { userId: p.userId, code: c } });

async function auditActions(userId: string) {
  const rows = await t.db
    .select({ action: auditEvents.action })
    .from(auditEvents)
    .where(eq(auditEvents.targetId, userId));
  return rows.map((r) => r.action);
}

describe("enrolment", () => {
  it("stores the secret encrypted, confirms with a code, returns ten recovery codes once", async () => {
    const p = await personWithPassword();
    const started = await beginTwoFactorEnrolment({ ctx: p.ctx() });
    const secret = started.manualKey.replace(/\s+/g, "");
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(started.otpauthUri).toContain(`secret=${secret}`);
    expect(started.otpauthUri).toContain("issuer=Sluice");
    expect(started.qrCodeDataUrl).toMatch(/^data:image\/svg\+xml;base64,/);

    const [row] = await t.db.select().from(userTwoFactor).where(eq(userTwoFactor.userId, p.userId));
    expect(row!.enabledAt).toBeNull();
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(Buffer.from(row!.ciphertext, "base64").toString("utf8")).not.toContain(secret);

    // Pending: sign-in is not yet guarded, and a wrong code does not enable it.
    expect(await signIn(p, undefined)).toEqual({ usedFactor: "none" });
    await expect(
      confirmTwoFactorEnrolment({ ctx: p.ctx(), input: { code: "000000" } }),
    ).rejects.toBeInstanceOf(ValidationError);
    expect((await getTwoFactorStatus({ ctx: p.ctx() })).enabled).toBe(false);

    const { recoveryCodes } = await confirmTwoFactorEnrolment({
      ctx: p.ctx(),
      input: { code: await code(secret, T0) },
    });
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    for (const c of recoveryCodes) expect(c).toMatch(/^[0-9a-z]{5}-[0-9a-z]{5}$/);
    const stored = await t.db
      .select()
      .from(twoFactorRecoveryCodes)
      .where(eq(twoFactorRecoveryCodes.userId, p.userId));
    expect(stored).toHaveLength(10);
    for (const c of recoveryCodes) expect(JSON.stringify(stored)).not.toContain(c.replace("-", ""));

    const status = await getTwoFactorStatus({ ctx: p.ctx() });
    expect(status).toMatchObject({ hasPassword: true, enabled: true, recoveryCodesLeft: 10 });
    // Recorded in each workspace of the user, so its admins read it in their audit log.
    const enabledRows = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.targetId, p.userId), eq(auditEvents.action, "two_factor.enabled")));
    expect(enabledRows.map((r) => r.workspaceId)).toEqual([p.fx.workspaceId]);

    // Enabled: enrolment cannot silently swap the authenticator.
    await expect(beginTwoFactorEnrolment({ ctx: p.ctx() })).rejects.toBeInstanceOf(ConflictError);
  });

  it("refuses accounts without a password (GitHub sign-in has its own two-factor)", async () => {
    const fx = await createWorkspaceFixture(t.db, "OAuthOnly");
    await expect(beginTwoFactorEnrolment({ ctx: fx.ctx("editor") })).rejects.toBeInstanceOf(
      PreconditionFailedError,
    );
    expect(await needsTwoFactorEnrolment(t.db, fx.members.editor)).toBe(false);
  });
});

describe("sign-in second factor", () => {
  it("asks for a code, refuses a wrong one, accepts ±1 step of drift and nothing beyond", async () => {
    const p = await personWithPassword();
    const { secret } = await enrolled(p);
    await expect(signIn(p, undefined)).rejects.toMatchObject({ reason: "two_factor_required" });
    await expect(signIn(p, "")).rejects.toMatchObject({ reason: "two_factor_required" });
    await expect(signIn(p, "123456")).rejects.toMatchObject({ reason: "two_factor_invalid" });
    // Ascending, because each accepted step makes earlier ones unusable (replay protection).
    await expect(signIn(p, await code(secret, at(-60)))).rejects.toBeInstanceOf(SecondFactorError);
    expect(await signIn(p, await code(secret, at(-30)))).toEqual({ usedFactor: "totp" });
    expect(await signIn(p, await code(secret, at(30)))).toEqual({ usedFactor: "totp" });
    await expect(signIn(p, await code(secret, at(60)))).rejects.toMatchObject({
      reason: "two_factor_invalid",
    });
  });

  it("accepts a code once: a replay, or an older step after a newer one, is refused", async () => {
    const p = await personWithPassword();
    const { secret } = await enrolled(p);
    const now = await code(secret, T0);
    expect(await signIn(p, now)).toEqual({ usedFactor: "totp" });
    await expect(signIn(p, now)).rejects.toMatchObject({ reason: "two_factor_invalid" });
    await expect(signIn(p, await code(secret, at(-30)))).rejects.toMatchObject({
      reason: "two_factor_invalid",
    });
  });

  it("lets parallel sign-ins with the same code succeed exactly once", async () => {
    const p = await personWithPassword();
    const { secret } = await enrolled(p);
    const c = await code(secret, T0);
    const results = await Promise.allSettled(Array.from({ length: 4 }, () => signIn(p, c)));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
  });

  it("spends a recovery code once, in any spelling, and audits it", async () => {
    const p = await personWithPassword();
    const { recoveryCodes } = await enrolled(p);
    const first = recoveryCodes[0]!;
    expect(await signIn(p, ` ${first.toUpperCase().replace("-", " ")} `)).toEqual({
      usedFactor: "recovery",
    });
    await expect(signIn(p, first)).rejects.toMatchObject({ reason: "two_factor_invalid" });
    expect(await signIn(p, recoveryCodes[1]!)).toEqual({ usedFactor: "recovery" });
    expect((await getTwoFactorStatus({ ctx: p.ctx() })).recoveryCodesLeft).toBe(8);
    const used = (await auditActions(p.userId)).filter(
      (a) => a === "two_factor.recovery_code_used",
    );
    expect(used).toHaveLength(2);
  });
});

describe("authorize (credentials provider: password, then the second factor, behind the throttle)", () => {
  const authorize = (p: Person, input: Record<string, unknown>) =>
    signInWithPassword({ ctx: p.ctx(), input: { email: p.email, ...input } });

  it("password without code → two_factor_required; wrong code refused; recovery code once", async () => {
    const p = await personWithPassword();
    const { secret, recoveryCodes } = await enrolled(p);
    // A wrong password never reveals that the account has two-factor.
    expect(await authorize(p, { password: "wrong password!" })).toBeNull();
    expect(await authorize(p, { password: "wrong password!", code: "123456" })).toBeNull();
    await expect(authorize(p, { password: PASSWORD })).rejects.toThrow("two_factor_required");
    await expect(authorize(p, { password: PASSWORD, code: "123456" })).rejects.toThrow(
      "two_factor_invalid",
    );
    const user = await authorize(p, { password: PASSWORD, code: await code(secret, T0) });
    expect(user).toMatchObject({ id: p.userId, email: p.email });
    expect(await authorize(p, { password: PASSWORD, code: recoveryCodes[3] })).toMatchObject({
      id: p.userId,
    });
    await expect(authorize(p, { password: PASSWORD, code: recoveryCodes[3] })).rejects.toThrow(
      "two_factor_invalid",
    );
  });

  it("wrong codes count against the throttle; the password alone neither counts nor clears it", async () => {
    const p = await personWithPassword();
    await enrolled(p);
    const wrongCode = () =>
      expect(authorize(p, { password: PASSWORD, code: "000000" })).rejects.toThrow(
        "two_factor_invalid",
      );
    for (let i = 0; i < 4; i++) {
      await wrongCode();
      // The first step (right password, no code) must not reset the failures of wrong codes.
      await expect(authorize(p, { password: PASSWORD })).rejects.toThrow("two_factor_required");
    }
    await wrongCode(); // the fifth failure: locked from now on, even for the first step
    await expect(authorize(p, { password: PASSWORD })).rejects.toBeInstanceOf(TooManyAttemptsError);
  });

  it("lets users without two-factor in with the password alone", async () => {
    const p = await personWithPassword();
    expect(await authorize(p, { password: PASSWORD })).toMatchObject({ id: p.userId });
  });
});

describe("disable and regenerate", () => {
  it("disable needs a fresh code: a used or wrong one is refused, a recovery code works", async () => {
    const p = await personWithPassword();
    const { secret, recoveryCodes } = await enrolled(p);
    const used = await code(secret, T0);
    await signIn(p, used);
    await expect(disableTwoFactor({ ctx: p.ctx(), input: { code: used } })).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(
      disableTwoFactor({ ctx: p.ctx(), input: { code: "aaaaa-bbbbb" } }),
    ).rejects.toBeInstanceOf(ValidationError);
    expect((await getTwoFactorStatus({ ctx: p.ctx() })).enabled).toBe(true);
    await disableTwoFactor({ ctx: p.ctx(), input: { code: recoveryCodes[0]! } });
    expect((await getTwoFactorStatus({ ctx: p.ctx() })).enabled).toBe(false);
    expect(
      await t.db
        .select()
        .from(twoFactorRecoveryCodes)
        .where(eq(twoFactorRecoveryCodes.userId, p.userId)),
    ).toHaveLength(0);
    expect(await signIn(p, undefined)).toEqual({ usedFactor: "none" });
    expect(await auditActions(p.userId)).toContain("two_factor.disabled");
  });

  it("disable with a fresh authenticator code", async () => {
    const p = await personWithPassword();
    const { secret } = await enrolled(p);
    await disableTwoFactor({ ctx: p.ctx(), input: { code: await code(secret, T0) } });
    expect((await getTwoFactorStatus({ ctx: p.ctx() })).enabled).toBe(false);
  });

  it("regenerate needs a fresh authenticator code and replaces every old recovery code", async () => {
    const p = await personWithPassword();
    const { secret, recoveryCodes: old } = await enrolled(p);
    await expect(
      regenerateRecoveryCodes({ ctx: p.ctx(), input: { code: old[0]! } }),
    ).rejects.toBeInstanceOf(ValidationError);
    const { recoveryCodes } = await regenerateRecoveryCodes({
      ctx: p.ctx(),
      input: { code: await code(secret, T0) },
    });
    expect(recoveryCodes).toHaveLength(10);
    await expect(signIn(p, old[1]!, at(30))).rejects.toMatchObject({
      reason: "two_factor_invalid",
    });
    expect(await signIn(p, recoveryCodes[0]!, at(30))).toEqual({ usedFactor: "recovery" });
    expect(await auditActions(p.userId)).toContain("two_factor.recovery_codes_regenerated");
  });
});

describe("workspace requirement", () => {
  it("is owner-only, audited, and sends password members without two-factor to enrol", async () => {
    const fx = await createWorkspaceFixture(t.db, "Requires2fa");
    const member = await personWithPassword("viewer", fx);
    for (const role of ["viewer", "editor", "approver", "admin"] as const)
      await expect(
        setTwoFactorRequirement({ ctx: fx.ctx(role), input: { required: true } }),
      ).rejects.toBeInstanceOf(ForbiddenError);
    expect(await getTwoFactorRequirement({ ctx: fx.ctx("admin") })).toEqual({
      required: false,
      canChange: false,
    });
    expect(await needsTwoFactorEnrolment(t.db, member.userId)).toBe(false);

    await setTwoFactorRequirement({ ctx: fx.ctx("owner"), input: { required: true } });
    expect(await getTwoFactorRequirement({ ctx: fx.ctx("owner") })).toEqual({
      required: true,
      canChange: true,
    });
    const [audit] = await t.db
      .select()
      .from(auditEvents)
      .where(
        and(
          eq(auditEvents.workspaceId, fx.workspaceId),
          eq(auditEvents.action, "workspace.two_factor_requirement_updated"),
        ),
      );
    expect(audit!.data).toEqual({ before: false, after: true });

    // The password member must enrol; the fixture's members have no password (OAuth): exempt.
    expect(await needsTwoFactorEnrolment(t.db, member.userId)).toBe(true);
    expect(await needsTwoFactorEnrolment(t.db, fx.members.viewer)).toBe(false);
    expect((await getTwoFactorStatus({ ctx: member.ctx() })).requiredBy).toEqual([
      { id: fx.workspaceId, name: "Requires2fa" },
    ]);

    const { secret } = await enrolled(member);
    expect(await needsTwoFactorEnrolment(t.db, member.userId)).toBe(false);
    // While required, it cannot be turned off.
    await expect(
      disableTwoFactor({ ctx: member.ctx(), input: { code: await code(secret, T0) } }),
    ).rejects.toBeInstanceOf(PreconditionFailedError);

    await setTwoFactorRequirement({ ctx: fx.ctx("owner"), input: { required: false } });
    expect((await getTwoFactorRequirement({ ctx: fx.ctx("owner") })).required).toBe(false);
  });

  it("refuses a malformed input naming the field", async () => {
    const fx = await createWorkspaceFixture(t.db, "Req2faInput");
    await expect(
      setTwoFactorRequirement({ ctx: fx.ctx("owner"), input: { required: "yes" } }),
    ).rejects.toBeInstanceOf(ValidationError);
  });
});
