import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import tls from "node:tls";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendJson, startHttpServer, type LocalServer } from "../testing/local-http";
import type { Resolver } from "./outbound-host";
import { safeFetch } from "./safe-fetch";
import { SafeFetchError } from "./safe-fetch-error";

let target: LocalServer;
let second: LocalServer;
const LOCAL = ["127.0.0.1"];

async function refusal(p: Promise<unknown>): Promise<SafeFetchError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(SafeFetchError);
    return e as SafeFetchError;
  }
  throw new Error("expected the request to be refused");
}

beforeAll(async () => {
  second = await startHttpServer((req, res) => {
    sendJson(res, 200, { second: true, auth: req.headers.authorization ?? null });
  });
  target = await startHttpServer(async (req, res, body) => {
    const url = new URL(req.url ?? "/", "http://x");
    switch (url.pathname) {
      case "/json":
        return sendJson(res, 200, { ok: true, method: req.method, body });
      case "/redirect-to-loopback":
        res.writeHead(302, { location: `${second.origin}/` });
        return res.end();
      case "/redirect-relative":
        res.writeHead(307, { location: "/json" });
        return res.end();
      case "/see-other":
        res.writeHead(303, { location: "/json" });
        return res.end();
      case "/loop":
        res.writeHead(302, { location: "/loop" });
        return res.end();
      case "/big":
        res.writeHead(200, { "content-type": "text/plain" });
        return res.end("x".repeat(5000));
      case "/big-chunked":
        res.writeHead(200, { "content-type": "text/plain" });
        for (let i = 0; i < 10; i++) res.write("y".repeat(1000));
        return res.end();
      case "/gzip-bomb":
        res.writeHead(200, { "content-encoding": "gzip", "content-type": "text/plain" });
        return res.end(gzipSync(Buffer.alloc(1_000_000, 0x61)));
      case "/gzip":
        res.writeHead(200, { "content-encoding": "gzip", "content-type": "text/plain" });
        return res.end(gzipSync(Buffer.from("hello gzip")));
      case "/slow":
        await new Promise((r) => setTimeout(r, 2000));
        return sendJson(res, 200, { late: true });
      case "/stream":
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write('data: {"id":1}\n\n');
        return; // never ends
      default:
        return sendJson(res, 404, { error: "nope" });
    }
  });
});
afterAll(async () => {
  await target?.close();
  await second?.close();
});

describe("SSRF guard", () => {
  it("refuses loopback by IP and by name, without sending anything", async () => {
    const before = target.requests.length;
    const e1 = await refusal(safeFetch(`${target.origin}/json`));
    expect(e1.code).toBe("BLOCKED_ADDRESS");
    expect(e1.info.addressClass).toBe("loopback");
    expect(e1.message).toMatch(/loopback/);
    const e2 = await refusal(safeFetch(`http://localhost:${target.port}/json`));
    expect(e2.info.addressClass).toBe("loopback");
    expect(target.requests.length).toBe(before);
  });

  it.each([
    "2130706433",
    "0x7f.1",
    "127.1",
    "0177.0.0.1",
    "0x7f000001",
    "[::1]",
    "[::ffff:127.0.0.1]",
    "[::ffff:7f00:1]",
    "[::127.0.0.1]",
  ])("refuses the loopback spelling %s", async (host) => {
    const e = await refusal(safeFetch(`http://${host}:${target.port}/json`));
    expect(e.code).toBe("BLOCKED_ADDRESS");
    expect(e.info.addressClass).toBe("loopback");
  });

  it.each([
    ["10.0.0.1", "private"],
    ["172.16.5.4", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "shared"],
    ["[fd00::1]", "private"],
    ["169.254.1.1", "link-local"],
    ["[fe80::1]", "link-local"],
    ["0.0.0.0", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["169.254.169.254", "metadata"],
    ["[fd00:ec2::254]", "metadata"],
    ["[::ffff:169.254.169.254]", "metadata"],
    ["metadata.google.internal", "metadata"],
  ])("refuses %s as %s", async (host, cls) => {
    const e = await refusal(safeFetch(`http://${host}/latest/meta-data/`, { timeoutMs: 2000 }));
    expect(e.code).toBe("BLOCKED_ADDRESS");
    expect(e.info.addressClass).toBe(cls);
  });

  it("checks every resolved address of a name, and IPv4-mapped answers", async () => {
    const answers: Record<string, string[]> = {
      "mixed.test": ["93.184.215.14", "10.1.2.3"],
      "mapped.test": ["::ffff:127.0.0.1"],
      "meta.test": ["169.254.169.254"],
    };
    const resolver: Resolver = async (h) =>
      (answers[h] ?? []).map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
    expect((await refusal(safeFetch("http://mixed.test/", { resolver }))).info).toMatchObject({
      address: "10.1.2.3",
      addressClass: "private",
    });
    expect((await refusal(safeFetch("http://mapped.test/", { resolver }))).info.addressClass).toBe(
      "loopback",
    );
    // A broad range does not open metadata endpoints.
    const meta = await refusal(
      safeFetch("http://meta.test/", { resolver, allowedPrivateHosts: ["169.254.0.0/16"] }),
    );
    expect(meta.info.addressClass).toBe("metadata");
  });

  it("lets an allow-listed private host through (IP, CIDR or name)", async () => {
    for (const allowed of [["127.0.0.1"], ["127.0.0.0/8"], ["::ffff:127.0.0.0/104"]]) {
      const res = await safeFetch(`${target.origin}/json`, { allowedPrivateHosts: allowed });
      expect(res.status).toBe(200);
      expect(JSON.parse(res.text())).toMatchObject({ ok: true });
    }
    const byName = await safeFetch(`http://localhost:${target.port}/json`, {
      allowedPrivateHosts: ["localhost"],
    });
    expect(byName.status).toBe(200);
  });

  it("pins the connection to the checked address: DNS is asked once per hop", async () => {
    let calls = 0;
    const resolver: Resolver = async () => {
      calls++;
      return calls === 1
        ? [{ address: "127.0.0.1", family: 4 }]
        : [{ address: "10.9.9.9", family: 4 }];
    };
    const res = await safeFetch(`http://rebind.test:${target.port}/json`, {
      resolver,
      allowedPrivateHosts: ["127.0.0.1"],
    });
    expect(res.status).toBe(200);
    expect(res.address).toBe("127.0.0.1");
    expect(calls).toBe(1);
    expect(target.requests.at(-1)?.headers.host).toBe(`rebind.test:${target.port}`);
  });

  it("re-checks every redirect hop: an allowed first hop cannot bounce to loopback", async () => {
    const before = second.requests.length;
    // "localhost" plays the allowed public-looking host; the redirect goes to 127.0.0.1.
    const e = await refusal(
      safeFetch(`http://localhost:${target.port}/redirect-to-loopback`, {
        allowedPrivateHosts: ["localhost"],
      }),
    );
    expect(e.code).toBe("BLOCKED_ADDRESS");
    expect(e.info).toMatchObject({ address: "127.0.0.1", addressClass: "loopback" });
    expect(second.requests.length).toBe(before);
  });

  it("refuses other schemes and credentials in URLs", async () => {
    expect((await refusal(safeFetch("file:///etc/passwd"))).code).toBe("INVALID_URL");
    expect((await refusal(safeFetch("ftp://example.com/"))).code).toBe("INVALID_URL");
    expect((await refusal(safeFetch("gopher://127.0.0.1:6379/_x"))).code).toBe("INVALID_URL");
    expect((await refusal(safeFetch("http://u:p@example.com/"))).code).toBe("INVALID_URL");
    expect((await refusal(safeFetch("not a url"))).code).toBe("INVALID_URL");
  });
});

describe("allowedDomains", () => {
  it("accepts exact and wildcard matches and refuses the rest, on every hop", async () => {
    const ok = await safeFetch(`http://localhost:${target.port}/json`, {
      allowedPrivateHosts: ["localhost"],
      allowedDomains: ["localhost"],
    });
    expect(ok.status).toBe(200);
    const wild = await refusal(
      safeFetch(`http://localhost:${target.port}/json`, {
        allowedPrivateHosts: ["localhost"],
        allowedDomains: ["*.example.com"],
      }),
    );
    expect(wild.code).toBe("DOMAIN_NOT_ALLOWED");
    // The redirect target 127.0.0.1 is allow-listed as a private host but not an allowed domain.
    const hop = await refusal(
      safeFetch(`http://localhost:${target.port}/redirect-to-loopback`, {
        allowedPrivateHosts: ["localhost", "127.0.0.1"],
        allowedDomains: ["localhost"],
      }),
    );
    expect(hop.code).toBe("DOMAIN_NOT_ALLOWED");
    expect(hop.message).toContain("127.0.0.1");
  });
});

describe("redirects", () => {
  const opts = { allowedPrivateHosts: LOCAL };

  it("follows relative redirects, keeping the method for 307 and switching to GET for 303", async () => {
    const r307 = await safeFetch(`${target.origin}/redirect-relative`, {
      ...opts,
      method: "POST",
      body: "payload",
    });
    expect(JSON.parse(r307.text())).toMatchObject({ method: "POST", body: "payload" });
    expect(r307.redirects).toEqual([`${target.origin}/json`]);
    const r303 = await safeFetch(`${target.origin}/see-other`, {
      ...opts,
      method: "POST",
      body: "payload",
    });
    expect(JSON.parse(r303.text())).toMatchObject({ method: "GET", body: "" });
  });

  it("stops after 5 redirects", async () => {
    const e = await refusal(safeFetch(`${target.origin}/loop`, opts));
    expect(e.code).toBe("TOO_MANY_REDIRECTS");
    const raw = await safeFetch(`${target.origin}/loop`, { ...opts, maxRedirects: 0 });
    expect(raw.status).toBe(302);
  });

  it("drops credentials when a redirect changes origin", async () => {
    const res = await safeFetch(`http://localhost:${target.port}/redirect-to-loopback`, {
      allowedPrivateHosts: ["localhost", "127.0.0.1"],
      headers: { Authorization: "Bearer sekrit" },
    });
    expect(JSON.parse(res.text())).toEqual({ second: true, auth: null });
  });
});

describe("limits", () => {
  const opts = { allowedPrivateHosts: LOCAL };

  it("caps the response size with a clear error (declared, chunked and decompressed)", async () => {
    for (const path of ["/big", "/big-chunked", "/gzip-bomb"]) {
      const e = await refusal(
        safeFetch(`${target.origin}${path}`, { ...opts, maxResponseBytes: 4096 }),
      );
      expect(e.code).toBe("RESPONSE_TOO_LARGE");
      expect(e.message).toBe("Response body exceeds the 4 KiB limit");
    }
    const gz = await safeFetch(`${target.origin}/gzip`, opts);
    expect(gz.text()).toBe("hello gzip");
  });

  it("times out and honours the caller's signal", async () => {
    const started = Date.now();
    const e = await refusal(safeFetch(`${target.origin}/slow`, { ...opts, timeoutMs: 200 }));
    expect(e.code).toBe("TIMEOUT");
    expect(e.retryable).toBe(true);
    expect(Date.now() - started).toBeLessThan(1500);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const a = await refusal(
      safeFetch(`${target.origin}/slow`, { ...opts, signal: controller.signal }),
    );
    expect(a.code).toBe("ABORTED");
    expect(a.retryable).toBe(false);
  });

  it("reads a never-ending stream only until stopWhen is satisfied", async () => {
    const res = await safeFetch(`${target.origin}/stream`, {
      ...opts,
      timeoutMs: 5000,
      stopWhen: (body) => body.toString().includes("\n\n"),
    });
    expect(res.partial).toBe(true);
    expect(res.text()).toContain('{"id":1}');
  });

  it("reports connection failures as retryable", async () => {
    const closed = await startHttpServer(() => {});
    await closed.close();
    const e = await refusal(safeFetch(`${closed.origin}/`, opts));
    expect(e.code).toBe("CONNECTION_FAILED");
    expect(e.retryable).toBe(true);
  });
});

const hasOpenssl = (() => {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

describe("https", () => {
  it.skipIf(!hasOpenssl)(
    "pins the address but keeps the host name for SNI and certificate checks",
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-tls-"));
      execFileSync(
        "openssl",
        [
          "req",
          "-x509",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-days",
          "1",
          "-subj",
          "/CN=localhost",
          "-keyout",
          path.join(dir, "key.pem"),
          "-out",
          path.join(dir, "cert.pem"),
        ],
        { stdio: "ignore" },
      );
      const key = fs.readFileSync(path.join(dir, "key.pem"));
      const cert = fs.readFileSync(path.join(dir, "cert.pem"));
      const names: string[] = [];
      const server = https.createServer(
        {
          key,
          cert,
          SNICallback: (name, cb) => {
            names.push(name);
            cb(null, tls.createSecureContext({ key, cert }));
          },
        },
        (_req, res) => res.end("secure"),
      );
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      const port = (server.address() as AddressInfo).port;
      try {
        const resolver: Resolver = async () => [{ address: "127.0.0.1", family: 4 }];
        // A self-signed certificate is refused (a TLS error, not retried), after SNI named the host.
        const e = await refusal(
          safeFetch(`https://secure.test:${port}/`, {
            resolver,
            allowedPrivateHosts: ["127.0.0.1"],
          }),
        );
        expect(e.code).toBe("TLS");
        expect(e.retryable).toBe(false);
        expect(names).toEqual(["secure.test"]);
      } finally {
        server.closeAllConnections();
        await new Promise((r) => server.close(r));
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

/** A server that counts the TCP connections it accepts and notes which local address each hit. */
async function countingServer(
  host: string,
  onRequest: (req: http.IncomingMessage, res: http.ServerResponse, served: number) => void = (
    _req,
    res,
  ) => res.end("ok"),
) {
  const connections: string[] = [];
  const servedOn = new WeakMap<object, number>();
  const server = http.createServer((req, res) => {
    const served = servedOn.get(req.socket) ?? 0;
    servedOn.set(req.socket, served + 1);
    onRequest(req, res, served);
  });
  server.on("connection", (s) => connections.push(s.localAddress ?? ""));
  await new Promise<void>((r) => server.listen(0, host, r));
  return {
    port: (server.address() as AddressInfo).port,
    connections,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

describe("keep-alive connections", () => {
  it("reuses one connection for consecutive requests to the same pinned address", async () => {
    const srv = await countingServer("127.0.0.1");
    try {
      for (let i = 0; i < 3; i++) {
        const res = await safeFetch(`http://127.0.0.1:${srv.port}/x`, {
          allowedPrivateHosts: LOCAL,
        });
        expect(res.text()).toBe("ok");
      }
      // A POST may only reuse a connection when the receiver can dedupe a repeat of it.
      await safeFetch(`http://127.0.0.1:${srv.port}/x`, {
        method: "POST",
        body: "{}",
        headers: { "Idempotency-Key": "k1" },
        allowedPrivateHosts: LOCAL,
      });
      expect(srv.connections).toHaveLength(1);
      await safeFetch(`http://127.0.0.1:${srv.port}/x`, {
        method: "POST",
        body: "{}",
        allowedPrivateHosts: LOCAL,
      });
      expect(srv.connections).toHaveLength(2);
    } finally {
      await srv.close();
    }
  });

  it("never reuses a connection for a different pinned address of the same host", async () => {
    const srv = await countingServer("0.0.0.0");
    try {
      let answer = "127.0.0.1";
      const resolver: Resolver = async () => [{ address: answer, family: 4 }];
      const get = () =>
        safeFetch(`http://multi.test:${srv.port}/x`, {
          resolver,
          allowedPrivateHosts: ["127.0.0.0/8"],
        });
      expect((await get()).address).toBe("127.0.0.1");
      answer = "127.0.0.2";
      expect((await get()).address).toBe("127.0.0.2");
      expect(srv.connections).toEqual(["127.0.0.1", "127.0.0.2"]);
      answer = "127.0.0.1";
      expect((await get()).address).toBe("127.0.0.1");
      answer = "127.0.0.2";
      expect((await get()).address).toBe("127.0.0.2");
      // Each pinned address kept its own connection; none crossed over.
      expect(srv.connections).toEqual(["127.0.0.1", "127.0.0.2"]);
    } finally {
      await srv.close();
    }
  });

  it("sends again on a fresh connection when a reused one is reset before any answer", async () => {
    const srv = await countingServer("127.0.0.1", (req, res, served) => {
      // The second request on a connection finds it gone, as when a server drops an idle socket.
      if (served > 0) req.socket.resetAndDestroy();
      else res.end("fresh");
    });
    try {
      const get = () => safeFetch(`http://127.0.0.1:${srv.port}/x`, { allowedPrivateHosts: LOCAL });
      expect((await get()).text()).toBe("fresh");
      expect((await get()).text()).toBe("fresh");
      expect(srv.connections).toHaveLength(2);
    } finally {
      await srv.close();
    }
  });
});
