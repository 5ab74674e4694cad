import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "./log";
import {
  createRedactor,
  REDACTED_KEY_VALUE,
  redactSecretKeys,
  registerLogRedactor,
  secretVariants,
} from "./redact";

const SECRET = "s3cr3t-Tok+en/with=odd&chars?ü";
const r = createRedactor([{ name: "API_TOKEN", value: SECRET }]);
const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

/** Every form a secret can take on the way out; none may survive redaction. */
const encodings: Record<string, (s: string) => string> = {
  raw: (s) => s,
  base64: b64,
  "base64 unpadded": (s) => b64(s).replace(/=+$/, ""),
  base64url: (s) => Buffer.from(s, "utf8").toString("base64url"),
  hex: (s) => Buffer.from(s, "utf8").toString("hex"),
  "hex upper": (s) => Buffer.from(s, "utf8").toString("hex").toUpperCase(),
  encodeURIComponent: (s) => encodeURIComponent(s),
  "encodeURIComponent lower-case": (s) =>
    encodeURIComponent(s).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
  encodeURI: (s) => encodeURI(s),
  "form encoding": (s) => new URLSearchParams({ x: s }).toString().slice(2),
  "JSON string": (s) => JSON.stringify(s),
  "JSON in JSON": (s) => JSON.stringify(JSON.stringify({ token: s })),
};

describe("createRedactor.string", () => {
  for (const [name, encode] of Object.entries(encodings)) {
    it(`removes the ${name} form`, () => {
      const encoded = encode(SECRET);
      const text = `before ${encoded} after`;
      const out = r.string(text);
      expect(out).not.toContain(encoded);
      expect(out).toContain("[REDACTED:API_TOKEN]");
      expect(out.startsWith("before ")).toBe(true);
      expect(out.endsWith(" after")).toBe(true);
    });
  }

  it("finds a secret embedded at any byte alignment of a longer base64 text", () => {
    for (const prefix of ["", "u", "us", "user:", "user:x", "user:xy"]) {
      const basic = b64(`${prefix}${SECRET}`);
      const out = r.string(`Authorization: Basic ${basic}`);
      expect(out).toContain("[REDACTED:API_TOKEN]");
      // Only the prefix's own characters (plus one mixed character) and the padding remain.
      const [before, after] = out
        .replace("Authorization: Basic ", "")
        .split("[REDACTED:API_TOKEN]");
      expect(before!.length).toBeLessThanOrEqual(Math.ceil((prefix.length * 4) / 3) + 1);
      expect(after!.length).toBeLessThanOrEqual(4);
    }
  });

  it("leaves text without secrets unchanged and ignores values shorter than 4 characters", () => {
    expect(r.string("nothing to see")).toBe("nothing to see");
    const short = createRedactor(["abc"]);
    expect(short.size).toBe(0);
    expect(short.string("abc abc")).toBe("abc abc");
  });

  it("redacts several secrets, the longest match first, with [REDACTED] when unnamed", () => {
    const two = createRedactor(["password", { name: "LONG", value: "password123" }]);
    expect(two.string("a password123 b password c")).toBe("a [REDACTED:LONG] b [REDACTED] c");
  });

  it("produces no variant shorter than the minimum", () => {
    expect(secretVariants("abcd").every((v) => v.length >= 4)).toBe(true);
  });
});

describe("createRedactor.value", () => {
  it("redacts deep values, keys and numbers, without touching the input", () => {
    const input = {
      a: [{ b: `x ${SECRET} y` }, 1, true, null],
      [`key-${SECRET}`]: "v",
      encoded: { deeper: [b64(SECRET)] },
    };
    const before = JSON.stringify(input);
    const out = r.value(input);
    expect(JSON.stringify(input)).toBe(before);
    const text = JSON.stringify(out);
    for (const encode of Object.values(encodings)) expect(text).not.toContain(encode(SECRET));
    expect(out.a[1]).toBe(1);
    expect(out.a[2]).toBe(true);
    expect(Object.keys(out)).toContain("key-[REDACTED:API_TOKEN]");
  });

  it("redacts numeric secrets in numbers", () => {
    const pin = createRedactor([{ name: "PIN", value: "987654" }]);
    expect(pin.value({ code: 987654, other: 5 })).toEqual({ code: "[REDACTED:PIN]", other: 5 });
  });

  it("catches a secret split across neighbouring strings in arrays and objects", () => {
    const split = r.value(["intro", SECRET.slice(0, 5), SECRET.slice(5)]);
    expect(split[0]).toBe("intro");
    expect(split.join("")).not.toContain(SECRET);
    expect(JSON.stringify(split)).not.toContain(SECRET.slice(0, 5));
    const obj = r.value({ a: SECRET.slice(0, 10), b: SECRET.slice(10) });
    expect(Object.values(obj).join("")).not.toContain(SECRET);
    const chars = r.value(SECRET.split(""));
    expect(chars.join("")).not.toContain(SECRET);
  });

  it("keeps cycles and shared references", () => {
    const shared = { s: SECRET };
    const cyclic: Record<string, unknown> = { one: shared, two: shared };
    cyclic.self = cyclic;
    const out = r.value(cyclic) as { one: { s: string }; two: unknown; self: unknown };
    expect(out.one.s).toBe("[REDACTED:API_TOKEN]");
    expect(out.two).toBe(out.one);
    expect(out.self).toBe(out);
  });

  it("redacts errors and keeps their class", () => {
    class MyError extends Error {
      constructor(
        message: string,
        readonly details: Record<string, unknown>,
      ) {
        super(message);
      }
    }
    const e = new MyError(`failed with ${SECRET}`, { header: `Bearer ${SECRET}` });
    const out = r.value(e);
    expect(out).toBeInstanceOf(MyError);
    expect(out.message).toBe("failed with [REDACTED:API_TOKEN]");
    expect(out.stack).not.toContain(SECRET);
    expect(out.details.header).toBe("Bearer [REDACTED:API_TOKEN]");
    expect(e.message).toContain(SECRET);
  });
});

describe("registerLogRedactor", () => {
  let remove: (() => void) | undefined;
  afterEach(() => remove?.());

  it("scrubs every form from log lines, including JSON-escaped values and errors", () => {
    const lines: string[] = [];
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    const spyOut = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    remove = registerLogRedactor(r);
    const log = createLogger({ test: "redact" });
    log.error("request failed", {
      err: new Error(`token ${SECRET} refused`),
      url: `https://x.test/?t=${encodeURIComponent(SECRET)}`,
      basic: b64(`me:${SECRET}`),
      hex: Buffer.from(SECRET).toString("hex"),
    });
    log.warn(`raw ${SECRET}`);
    spy.mockRestore();
    spyOut.mockRestore();
    const all = lines.join("\n");
    expect(lines.length).toBe(2);
    for (const encode of Object.values(encodings)) expect(all).not.toContain(encode(SECRET));
    expect(all).toContain("[REDACTED:API_TOKEN]");
  });
});

describe("redactSecretKeys", () => {
  it("replaces the values of secret-named keys at any depth and keeps secret names", () => {
    const details = {
      name: "API_TOKEN",
      value: "sk-live-1",
      nested: [{ Api_Key: "k", password: { deep: "p" } }, "plain"],
      after: { passwordSecret: "SMTP_PASSWORD", "client-secret": "c" },
    };
    expect(redactSecretKeys(details)).toEqual({
      name: "API_TOKEN",
      value: REDACTED_KEY_VALUE,
      nested: [{ Api_Key: REDACTED_KEY_VALUE, password: REDACTED_KEY_VALUE }, "plain"],
      after: { passwordSecret: "SMTP_PASSWORD", "client-secret": REDACTED_KEY_VALUE },
    });
    expect(details.value).toBe("sk-live-1");
  });
});
