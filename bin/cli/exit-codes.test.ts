import { describe, expect, it } from "vitest";
import { EXIT, exitForEnvelope, exitForHttpError } from "./exit-codes";

describe("exitForHttpError", () => {
  it("maps each refusal to SPEC §9's exit codes", () => {
    const cases: [number, string, unknown, number][] = [
      [400, "validation", undefined, EXIT.validation],
      [404, "not_found", undefined, EXIT.validation],
      [405, "method_not_allowed", undefined, EXIT.validation],
      [413, "payload_too_large", undefined, EXIT.validation],
      [422, "idempotency_key_reused", undefined, EXIT.validation],
      [412, "precondition_failed", undefined, EXIT.validation],
      [412, "llm_unavailable", undefined, EXIT.validation],
      [401, "unauthorized", undefined, EXIT.contract],
      [409, "stale_base", undefined, EXIT.contract],
      [409, "conflict", undefined, EXIT.contract],
      [410, "expired", undefined, EXIT.contract],
      [412, "precondition_failed", { code: "RESUME_TOKEN_MISMATCH" }, EXIT.contract],
      [412, "precondition_failed", { code: "ALREADY_DECIDED" }, EXIT.contract],
      [403, "forbidden", undefined, EXIT.policy],
      [403, "policy_violation", undefined, EXIT.policy],
      [412, "self_modification_disabled", undefined, EXIT.policy],
      [429, "rate_limited", undefined, EXIT.internal],
      [500, "internal", undefined, EXIT.internal],
      [503, "http_503", undefined, EXIT.internal],
      [0, "network", undefined, EXIT.internal],
    ];
    for (const [status, code, details, exit] of cases)
      expect([status, code, exitForHttpError(status, code, details)]).toEqual([status, code, exit]);
  });
});

describe("exitForEnvelope", () => {
  it("ok, needs_approval, cancelled and running are successes (SPEC §9)", () => {
    for (const status of ["ok", "needs_approval", "cancelled", "running"] as const)
      expect(exitForEnvelope({ status })).toBe(EXIT.ok);
  });

  it("a failed run exits by its failure class", () => {
    const step = (cls: string) => [{ stepId: "fetch", failureClass: cls }];
    const failed = (cls: string, runStatus = "failed") =>
      exitForEnvelope({
        status: "failed",
        runStatus,
        error: { code: "unhandled_failure", stepId: "fetch" },
        steps: step(cls),
      });
    expect(failed("user")).toBe(EXIT.validation);
    expect(failed("operational")).toBe(EXIT.internal);
    expect(failed("internal")).toBe(EXIT.internal);
    expect(failed("user", "timed_out")).toBe(EXIT.internal);
    expect(
      exitForEnvelope({ status: "failed", error: { code: "internal", class: "internal" } }),
    ).toBe(EXIT.internal);
    expect(exitForEnvelope({ status: "failed", error: { code: "output_unresolved" } })).toBe(
      EXIT.validation,
    );
  });
});
