import { describe, expect, it } from "vitest";
import { readBodyCapped } from "./read-body";

/** A POST whose body is a stream of `chunk`-byte pieces, `count` of them (Infinity: endless). */
function streamed(chunk: number, count: number, headers: Record<string, string> = {}) {
  const state = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (state.pulled >= count) return controller.close();
      state.pulled++;
      controller.enqueue(new Uint8Array(chunk).fill(97));
    },
    cancel() {
      state.cancelled = true;
    },
  });
  // A stream body needs duplex "half" (undici), which TypeScript's RequestInit does not list yet.
  const init = { method: "POST", body, headers, duplex: "half" } as RequestInit;
  const req = new Request("http://x.test/", init);
  return { req, state };
}

describe("readBodyCapped", () => {
  it("returns the whole body when it fits, up to exactly the cap", async () => {
    const { req } = streamed(4, 3);
    expect((await readBodyCapped(req, 12))?.toString("utf8")).toBe("a".repeat(12));
    const small = new Request("http://x.test/", { method: "POST", body: "héllo" });
    expect((await readBodyCapped(small, 1024))?.toString("utf8")).toBe("héllo");
  });

  it("treats an absent body as empty", async () => {
    const buf = await readBodyCapped(new Request("http://x.test/"), 10);
    expect(buf?.byteLength).toBe(0);
  });

  it("stops reading an endless body once it passes the cap, and cancels the stream", async () => {
    const { req, state } = streamed(1024, Infinity);
    expect(await readBodyCapped(req, 10_000)).toBeNull();
    expect(state.pulled).toBeLessThanOrEqual(11);
    expect(state.cancelled).toBe(true);
  });

  it("refuses a declared Content-Length over the cap without reading", async () => {
    const { req, state } = streamed(4, 1, { "content-length": "100" });
    expect(await readBodyCapped(req, 10)).toBeNull();
    expect(state.cancelled).toBe(false);
    expect(req.bodyUsed).toBe(false);
  });
});
