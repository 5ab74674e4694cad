/** Pure helpers: durations, ULIDs, JCS, signatures, CEL evaluation, function-config parsing. */
import { describe, expect, it } from "vitest";
import { parseSdkDuration, resolveUntil } from "./durations";
import { evaluateKey, expressionError, matches } from "./expressions";
import { parseCron, parseFunctionConfig } from "./function-config";
import { canonicalize } from "./jcs";
import { checkBearer, signatureHeader, verifySdkSignature } from "./signing";
import { hashedSigningKey } from "../../lib/server-only/signing-key";
import { seededUlids, ulid, ulidTime } from "../../lib/ids";

describe("durations", () => {
  it("parses the SDK's time strings and ISO dates", () => {
    expect(parseSdkDuration("1h30m")).toBe(5_400_000);
    expect(parseSdkDuration("2d")).toBe(172_800_000);
    expect(parseSdkDuration("1w1s")).toBe(604_801_000);
    expect(parseSdkDuration("")).toBe(0);
    expect(parseSdkDuration("soon")).toBeUndefined();
    expect(resolveUntil("2030-01-01T00:00:00.000Z", 0)).toBe(
      Math.min(Date.parse("2030-01-01T00:00:00.000Z"), 31_536_000_000),
    );
    expect(resolveUntil("10s", 1_000)).toBe(11_000);
    expect(resolveUntil("nonsense", 0)).toBeUndefined();
  });
});

describe("ULIDs", () => {
  it("are sortable and carry their time", () => {
    const a = ulid(1_000);
    const b = ulid(2_000);
    expect(a < b).toBe(true);
    expect(ulidTime(a)).toBe(1_000);
    expect(a).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
  });
  it("derive from the SDK's id seed deterministically, distinct per event", () => {
    const seed = `1700000000000,${Buffer.from("abcdefghij").toString("base64")}`;
    const one = seededUlids(seed, 3)!;
    expect(seededUlids(seed, 3)).toEqual(one);
    expect(new Set(one).size).toBe(3);
    expect(ulidTime(one[0]!)).toBe(1_700_000_000_000);
    expect(seededUlids("garbage", 1)).toBeUndefined();
    expect(seededUlids(undefined, 1)).toBeUndefined();
  });
});

describe("JCS and signatures", () => {
  it("canonicalises key order and number forms", () => {
    expect(canonicalize({ b: 1, a: [true, null, { d: 1e21, c: "x" }], u: undefined })).toBe(
      '{"a":[true,null,{"c":"x","d":1e+21}],"b":1}',
    );
  });
  it("signs and verifies as the SDK does (key text without its prefix)", () => {
    const key = `signkey-prod-${"ab".repeat(32)}`;
    const header = signatureHeader(key, "body", 1_700_000_000_000);
    expect(verifySdkSignature(header, "body", [key], 1_700_000_000_000)).toEqual({ ok: true });
    expect(verifySdkSignature(header, "other", [key], 1_700_000_000_000).ok).toBe(false);
    expect(verifySdkSignature(header, "body", [key], 1_700_000_000_000 + 6 * 60_000)).toMatchObject(
      {
        ok: false,
        reason: expect.stringContaining("window"),
      },
    );
    expect(
      verifySdkSignature(
        header,
        "body",
        [`signkey-prod-${"cd".repeat(32)}`, key],
        1_700_000_000_000,
      ),
    ).toEqual({ ok: true });
    expect(hashedSigningKey(key)).toMatch(/^signkey-prod-[0-9a-f]{64}$/);
    expect(checkBearer(`Bearer ${hashedSigningKey(key)}`, [key])).toBe(true);
    expect(checkBearer(`Bearer ${key}`, [key])).toBe(true);
    expect(checkBearer("Bearer nope", [key])).toBe(false);
    expect(checkBearer(undefined, [key])).toBe(false);
  });
});

describe("expressions", () => {
  const event = { name: "a/b", data: { id: 5, user: "u1", ok: true } };
  it("evaluates CEL; errors (missing keys, type mismatches) are no match", () => {
    expect(matches("event.data.id == async.data.id", { event, async: { data: { id: 5 } } })).toBe(
      true,
    );
    expect(matches("event.data.missing == 1", { event })).toBe(false);
    expect(matches("event.data.id + 'x' == 'y'", { event })).toBe(false);
    expect(matches("lowercase('ABC') == 'abc'", {})).toBe(true);
    expect(expressionError("event.data.id ==")).toMatch(/invalid expression/);
    expect(evaluateKey("event.data.user", { event })).toEqual({ ok: true, key: "u1" });
    expect(evaluateKey("event.data.id", { event })).toEqual({ ok: true, key: "5" });
    expect(evaluateKey("event.data.nope", { event }).ok).toBe(false);
  });
});

describe("function configs", () => {
  const base = {
    id: "app-fn",
    name: "fn",
    triggers: [{ event: "x" }],
    steps: { step: { id: "step", name: "step", runtime: { type: "http", url: "http://a/api" } } },
  };
  it("accepts supported options and derives attempts from retries", () => {
    const { spec, errors } = parseFunctionConfig("app", {
      ...base,
      steps: { step: { ...base.steps.step, retries: { attempts: 2 } } },
      concurrency: [{ limit: 2, key: "event.data.u" }],
      idempotency: "event.data.id",
      cancel: [{ event: "c", if: "async.data.id == event.data.id", timeout: "1h" }],
      timeouts: { finish: "5m" },
    });
    expect(errors).toEqual([]);
    expect(spec.maxAttempts).toBe(3);
    expect(spec.concurrency).toEqual([{ limit: 2, key: "event.data.u", scope: "fn" }]);
    expect(spec.cancel).toEqual([
      { event: "c", if: "async.data.id == event.data.id", timeoutMs: 3_600_000 },
    ]);
    expect(spec.timeouts).toEqual({ finishMs: 300_000 });
    expect(parseFunctionConfig("app", base).spec.maxAttempts).toBe(5);
  });
  it("refuses unknown and unsupported options by name", () => {
    const { errors } = parseFunctionConfig("app", {
      ...base,
      throttle: { limit: 1, period: "1s" },
      somethingNew: true,
      steps: { step: { ...base.steps.step, runtime: { type: "ws", url: "x" } } },
    });
    expect(errors.join("\n")).toMatch(/throttle is not supported/);
    expect(errors.join("\n")).toMatch(/the option "somethingNew" is not supported/);
    expect(errors.join("\n")).toMatch(/"ws" runtime \(connect\)/);
  });
  it("splits TZ= prefixes off cron expressions", () => {
    expect(parseCron("TZ=Europe/Paris 0 9 * * *")).toEqual({
      expression: "0 9 * * *",
      timezone: "Europe/Paris",
    });
    expect(parseCron("*/5 * * * *")).toEqual({ expression: "*/5 * * * *" });
    expect(
      parseFunctionConfig("app", { ...base, triggers: [{ cron: "not a cron" }] }).errors[0],
    ).toMatch(/invalid cron/);
  });
});
