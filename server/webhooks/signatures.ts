import "server-only";
import { createHmac, timingSafeEqual } from "node:crypto";
import type { SignaturePreset, WebhookVerification } from "@/lib/schemas/triggers";

/**
 * Webhook signature verification (SPEC §7). Every preset computes an HMAC-SHA256 over the raw
 * body (plus a timestamp where the scheme has one) and compares it in constant time; schemes with a
 * timestamp refuse deliveries outside the tolerance (replays). Reasons never contain the secret or
 * the received signature.
 *
 * Secrets are `whsec_<base64 of 32 random bytes>`. Standard Webhooks uses the decoded bytes after
 * `whsec_` as the key (as that spec says); generic HMAC, GitHub and Stripe use the whole string's
 * UTF-8 bytes (as GitHub and Stripe do with their secrets).
 */
export interface VerifyInput {
  verification: WebhookVerification;
  /** The current secret, then the previous one while its grace period lasts. */
  secrets: string[];
  headers: Headers;
  body: Buffer;
  now: Date;
}

export type VerifyResult =
  | { ok: true; deliveryId: string | null; secretIndex: number | null }
  | { ok: false; reason: string };

export function keyBytes(preset: SignaturePreset, secret: string): Buffer {
  if (preset === "standard" && secret.startsWith("whsec_"))
    return Buffer.from(secret.slice("whsec_".length), "base64");
  return Buffer.from(secret, "utf8");
}

export function hmac(key: Buffer, parts: (string | Buffer)[]): Buffer {
  const h = createHmac("sha256", key);
  for (const p of parts) h.update(p);
  return h.digest();
}

/** Constant-time comparison of a received signature (decoded) with the expected digest. */
function sameDigest(received: Buffer | null, expected: Buffer): boolean {
  if (!received || received.length !== expected.length) return false;
  return timingSafeEqual(received, expected);
}

function decode(value: string, encoding: "hex" | "base64"): Buffer | null {
  const v = value.trim();
  if (encoding === "hex")
    return /^[0-9a-fA-F]+$/.test(v) && v.length % 2 === 0 ? Buffer.from(v, "hex") : null;
  return /^[A-Za-z0-9+/_-]+=*$/.test(v) ? Buffer.from(v, "base64") : null;
}

function checkTimestamp(raw: string | null, toleranceSeconds: number, now: Date, header: string) {
  if (!raw) return `missing ${header}`;
  if (!/^\d{1,12}$/.test(raw.trim())) return `${header} is not a Unix timestamp in seconds`;
  const skew = Math.abs(now.getTime() / 1000 - Number(raw));
  return skew > toleranceSeconds
    ? `timestamp outside the ${toleranceSeconds} s tolerance (replayed or clock skew)`
    : null;
}

/** Tries each secret (current first); any match verifies. */
function anySecret(secrets: string[], matches: (secret: string) => boolean): number | null {
  let found: number | null = null;
  // Every secret is checked (no early exit), so timing does not reveal which one matched.
  secrets.forEach((s, i) => {
    if (matches(s) && found === null) found = i;
  });
  return found;
}

export function verifySignature(input: VerifyInput): VerifyResult {
  const { verification: v, headers, body, now, secrets } = input;
  const fail = (reason: string): VerifyResult => ({ ok: false, reason });
  switch (v.preset) {
    case "none":
      return { ok: true, deliveryId: null, secretIndex: null };

    case "hmac": {
      const raw = headers.get(v.header);
      if (!raw) return fail(`missing ${v.header} header`);
      if (v.prefix && !raw.startsWith(v.prefix))
        return fail(`${v.header} does not start with "${v.prefix}"`);
      const received = decode(raw.slice(v.prefix.length), v.encoding);
      if (!received) return fail(`${v.header} is not ${v.encoding}`);
      let ts: string | null = null;
      if (v.timestampHeader) {
        ts = headers.get(v.timestampHeader);
        const bad = checkTimestamp(ts, v.toleranceSeconds, now, v.timestampHeader);
        if (bad) return fail(bad);
      }
      const idx = anySecret(secrets, (s) =>
        sameDigest(received, hmac(keyBytes("hmac", s), ts ? [`${ts.trim()}.`, body] : [body])),
      );
      return idx === null
        ? fail("signature mismatch")
        : { ok: true, deliveryId: null, secretIndex: idx };
    }

    case "github": {
      const raw = headers.get("x-hub-signature-256");
      if (!raw) return fail("missing X-Hub-Signature-256 header");
      if (!raw.startsWith("sha256="))
        return fail('X-Hub-Signature-256 does not start with "sha256="');
      const received = decode(raw.slice(7), "hex");
      const idx = anySecret(secrets, (s) =>
        sameDigest(received, hmac(keyBytes("github", s), [body])),
      );
      return idx === null
        ? fail("signature mismatch")
        : { ok: true, deliveryId: headers.get("x-github-delivery"), secretIndex: idx };
    }

    case "stripe": {
      const raw = headers.get("stripe-signature");
      if (!raw) return fail("missing Stripe-Signature header");
      let t: string | null = null;
      const v1: Buffer[] = [];
      for (const part of raw.split(",")) {
        const eq = part.indexOf("=");
        if (eq < 0) continue;
        const k = part.slice(0, eq).trim();
        const val = part.slice(eq + 1).trim();
        if (k === "t") t = val;
        else if (k === "v1") {
          const d = decode(val, "hex");
          if (d) v1.push(d);
        }
      }
      if (!t || v1.length === 0)
        return fail("malformed Stripe-Signature header (needs t= and v1=)");
      const bad = checkTimestamp(t, v.toleranceSeconds, now, "Stripe-Signature timestamp");
      if (bad) return fail(bad);
      const idx = anySecret(secrets, (s) => {
        const expected = hmac(keyBytes("stripe", s), [`${t}.`, body]);
        return v1.map((sig) => sameDigest(sig, expected)).includes(true);
      });
      return idx === null
        ? fail("signature mismatch")
        : { ok: true, deliveryId: null, secretIndex: idx };
    }

    case "standard": {
      const id = headers.get("webhook-id");
      const ts = headers.get("webhook-timestamp");
      const raw = headers.get("webhook-signature");
      if (!id) return fail("missing webhook-id header");
      if (!raw) return fail("missing webhook-signature header");
      const bad = checkTimestamp(ts, v.toleranceSeconds, now, "webhook-timestamp");
      if (bad) return fail(bad);
      const sigs = raw
        .split(" ")
        .map((p) => p.trim())
        .filter((p) => p.startsWith("v1,"))
        .map((p) => decode(p.slice(3), "base64"));
      if (sigs.length === 0) return fail("webhook-signature has no v1 signature");
      const idx = anySecret(secrets, (s) => {
        const expected = hmac(keyBytes("standard", s), [`${id}.${ts!.trim()}.`, body]);
        return sigs.map((sig) => sameDigest(sig, expected)).includes(true);
      });
      return idx === null
        ? fail("signature mismatch")
        : { ok: true, deliveryId: id, secretIndex: idx };
    }
  }
}

/** Header names whose values are credentials: never stored on delivery rows. */
export function sensitiveHeaders(v: WebhookVerification): Set<string> {
  return new Set(
    [
      "authorization",
      "cookie",
      "proxy-authorization",
      "x-hub-signature",
      "x-hub-signature-256",
      "stripe-signature",
      "webhook-signature",
      v.preset === "hmac" ? v.header.toLowerCase() : "",
    ].filter(Boolean),
  );
}
