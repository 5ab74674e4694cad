/** Which X-Forwarded-For entry is the client, with and without trusted proxies in front. */
import { describe, expect, it } from "vitest";
import { normalizeAddress, requestClient } from "./client-address";

const xff = (value: string) => new Headers({ "x-forwarded-for": value, "user-agent": "ua" });

describe("requestClient", () => {
  it("takes the entry written by the nearest trusted hop, never one the client wrote", () => {
    // No proxy: Next's server wrote the socket address (only when the client sent none).
    expect(requestClient(xff("203.0.113.9"), 0).address).toBe("203.0.113.9");
    // One proxy appended the address it saw; the left entry is the client's own claim.
    expect(requestClient(xff("6.6.6.6, 203.0.113.9"), 1).address).toBe("203.0.113.9");
    // Two proxies: the outer one wrote the client, the inner one wrote the outer proxy.
    expect(requestClient(xff("6.6.6.6, 203.0.113.9, 10.0.0.2"), 2).address).toBe("203.0.113.9");
    // Fewer entries than proxies: the leftmost is all there is.
    expect(requestClient(xff("203.0.113.9"), 3).address).toBe("203.0.113.9");
  });

  it("reads plain header records (next-auth) and caps the user agent", () => {
    const c = requestClient({ "x-forwarded-for": "::1", "user-agent": "x".repeat(600) }, 0);
    expect(c.address).toBe("::1");
    expect(c.userAgent).toHaveLength(512);
    expect(requestClient({}, 0)).toEqual({ address: null, userAgent: null });
  });

  it("normalizes addresses and drops junk", () => {
    expect(normalizeAddress("::ffff:192.0.2.1")).toBe("192.0.2.1");
    expect(normalizeAddress("[2001:DB8::1]:443")).toBe("2001:db8::1");
    expect(normalizeAddress("192.0.2.1:8080")).toBe("192.0.2.1");
    expect(normalizeAddress("not-an-ip")).toBeNull();
    expect(normalizeAddress("1.2.3.4; drop table")).toBeNull();
  });
});
