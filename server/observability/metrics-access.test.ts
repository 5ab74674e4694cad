import { describe, expect, it } from "vitest";
import { parseEnv } from "@/env";
import { decideMetricsAccess } from "./metrics-access";
import { parseOtlpHeaders } from "./config";
import { runSpanId, runTraceId, stepSpanId, stepTraceparent } from "./trace-ids";

describe("metrics configuration", () => {
  it("parses SLUICE_METRICS_ALLOW into addresses and CIDRs, naming a bad entry", () => {
    expect(
      parseEnv({ SLUICE_METRICS_ALLOW: " 10.0.0.0/8, ::1 ,192.168.1.7" }).SLUICE_METRICS_ALLOW,
    ).toEqual(["10.0.0.0/8", "::1", "192.168.1.7"]);
    expect(() => parseEnv({ SLUICE_METRICS_ALLOW: "10.0.0.0/33" })).toThrow(
      /SLUICE_METRICS_ALLOW: "10.0.0.0\/33" is not an IP address or CIDR/,
    );
    expect(() => parseEnv({ SLUICE_METRICS_ALLOW: "example.com" })).toThrow(/example\.com/);
    for (const bad of ["2001:db8::/129", "zz::1", "1.2.3", "10.0.0.0/8/1", "256.1.1.1"])
      expect(() => parseEnv({ SLUICE_METRICS_ALLOW: bad }), bad).toThrow(/SLUICE_METRICS_ALLOW/);
    expect(
      parseEnv({ SLUICE_METRICS_ALLOW: "::ffff:10.0.0.1,fd00::/8" }).SLUICE_METRICS_ALLOW,
    ).toHaveLength(2);
    expect(() => parseEnv({ SLUICE_METRICS_TOKEN: "short" })).toThrow(/SLUICE_METRICS_TOKEN/);
    expect(parseEnv({}).SLUICE_METRICS_ALLOW).toBeUndefined();
    expect(parseEnv({}).OTEL_SERVICE_NAME).toBe("sluice");
  });

  it("parses OTLP headers (k=v pairs, percent-encoded values)", () => {
    expect(parseOtlpHeaders("api-key=a%20b, x-team=ops,broken")).toEqual({
      "api-key": "a b",
      "x-team": "ops",
    });
    expect(parseOtlpHeaders(undefined)).toEqual({});
  });
});

describe("decideMetricsAccess", () => {
  const req = (authorization: string | null, address: string | null = null) => ({
    authorization,
    address,
  });

  it("is off without a token or addresses", () => {
    expect(decideMetricsAccess({}, req("Bearer x"))).toMatchObject({ ok: false, status: 404 });
    expect(decideMetricsAccess({ allow: [] }, req(null))).toMatchObject({ status: 404 });
  });

  it("matches IPv4 and IPv6 subnets and single addresses", () => {
    const allow = ["10.0.0.0/8", "2001:db8::/32", "127.0.0.1"];
    for (const a of ["10.255.0.1", "2001:db8::5", "127.0.0.1"])
      expect(decideMetricsAccess({ allow }, req(null, a))).toEqual({ ok: true });
    for (const a of ["11.0.0.1", "2001:db9::5", "127.0.0.2", null, "junk"])
      expect(decideMetricsAccess({ allow }, req(null, a))).toMatchObject({ status: 403 });
  });

  it("checks the token exactly", () => {
    const token = "t".repeat(20);
    expect(decideMetricsAccess({ token }, req(`Bearer ${token}`))).toEqual({ ok: true });
    expect(decideMetricsAccess({ token }, req(`bearer ${token}`))).toEqual({ ok: true });
    for (const h of [null, `Bearer ${token}x`, `Bearer ${token.slice(1)}`, token, "Bearer "])
      expect(decideMetricsAccess({ token }, req(h))).toMatchObject({ status: 401 });
  });
});

describe("trace ids", () => {
  it("are derived from the run: stable, valid W3C ids, distinct per run, step and attempt", () => {
    expect(runTraceId("run_a")).toBe(runTraceId("run_a"));
    expect(runTraceId("run_a")).toMatch(/^[0-9a-f]{32}$/);
    expect(runSpanId("run_a")).toMatch(/^[0-9a-f]{16}$/);
    expect(runTraceId("run_a")).not.toBe(runTraceId("run_b"));
    const ids = new Set([
      runSpanId("run_a"),
      stepSpanId("run_a", "x", 1),
      stepSpanId("run_a", "x", 2),
      stepSpanId("run_a", "y", 1),
      stepSpanId("run_b", "x", 1),
    ]);
    expect(ids.size).toBe(5);
    expect(stepTraceparent("run_a", "x", 1)).toBe(
      `00-${runTraceId("run_a")}-${stepSpanId("run_a", "x", 1)}-01`,
    );
  });
});
