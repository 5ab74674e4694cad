/**
 * The webhook receiver through its route adapter (real Requests, real database, the engine running
 * the runs): every signature preset with valid, tampered, stale, replayed and rotated-secret
 * deliveries; concurrent duplicates; rate, size and method limits; mapping; sync mode. Async
 * deliveries become runs through the webhook admitter, so counts of runs wait for its drain.
 */
import { createHash, createHmac } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runs, triggerDeliveries, triggers } from "@/db/schema";
import { handleWebhook } from "@/server/http/hooks";
import { getRuntime } from "@/server/runtime";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";
import { runSampleScript } from "@/server/testing/sample-request";
import { createTrigger } from "./create-trigger";
import { getTrigger } from "./get-trigger";
import { rotateWebhookSecret } from "./rotate-webhook-secret";
import { setTriggerEnabled } from "./set-trigger-enabled";
import { startWebhookAdmitter, type AdmitterHandle } from "./webhook-admitter";

let e: RunHarness;
let admitter: AdmitterHandle;
let workflowId: string;

beforeAll(async () => {
  e = await startRunHarness("webhooks");
  admitter = startWebhookAdmitter({ db: e.db.db, ...getRuntime(), pollMs: 50 });
  workflowId = await e.workflow({
    schemaVersion: 1,
    name: "Orders",
    inputs: { order: { type: "string", required: true } },
    steps: [{ id: "echo", type: "transform", config: { value: "got {{ input.order }}" } }],
    output: "{{ steps.echo.output.data }}",
  });
});
afterAll(async () => {
  await admitter?.stop();
  await e?.close();
});

type Hook = { id: string; path: string; secret: string };
async function hook(
  config: Record<string, unknown> = {},
  name = "Hook",
  wf = workflowId,
): Promise<Hook> {
  const r = await createTrigger({
    ctx: e.ws.ctx("editor"),
    input: {
      kind: "webhook",
      workflowId: wf,
      name,
      config: { mapping: { order: "$.order.id" }, ...config },
    },
  });
  return { id: r.trigger.id, path: r.trigger.path!, secret: r.secret! };
}

async function send(
  path: string,
  opts: {
    method?: string;
    headers?: Record<string, string>;
    body?: string | ReadableStream;
    query?: string;
  } = {},
): Promise<Response> {
  const req = new Request(`http://localhost/api/hooks/${path}${opts.query ?? ""}`, {
    method: opts.method ?? "POST",
    headers: { "content-type": "application/json", ...opts.headers },
    body: opts.body,
    ...(opts.body instanceof ReadableStream ? { duplex: "half" } : {}),
  } as RequestInit);
  return handleWebhook(req, { params: Promise.resolve({ path: path.split("/") }) });
}

const hex = (secret: string, data: string) =>
  createHmac("sha256", secret).update(data).digest("hex");
const nowSec = () => Math.floor(Date.now() / 1000);
const body = (id: string) => JSON.stringify({ order: { id } });
const deliveries = async (triggerId: string) => {
  await admitter.drain();
  return e.db.db.select().from(triggerDeliveries).where(eq(triggerDeliveries.triggerId, triggerId));
};
const runsOf = async (triggerId: string) => {
  await admitter.drain();
  return e.db.db
    .select()
    .from(runs)
    .where(and(eq(runs.triggerType, "webhook"), eq(runs.triggerId, triggerId)));
};

describe("webhook signatures", () => {
  it("generic HMAC: valid → 202 and a run with mapped input; tampered → 401 recorded without secrets", async () => {
    const h = await hook();
    const b = body("A-1");
    const ok = await send(h.path, {
      headers: { "x-signature": `sha256=${hex(h.secret, b)}` },
      body: b,
    });
    expect(ok.status).toBe(202);
    const { runId } = await ok.json();
    const run = await e.waitFor(runId, ["completed", "failed"]);
    expect(run.output).toBe("got A-1");
    expect(run.triggerType).toBe("webhook");

    const forged = hex(h.secret, b);
    const bad = await send(h.path, {
      headers: { "x-signature": `sha256=${forged}` },
      body: body("A-2"),
    });
    expect(bad.status).toBe(401);
    expect((await bad.json()).error.message).toMatch(/signature mismatch/);
    const rows = await deliveries(h.id);
    expect(rows.map((r) => r.status).sort()).toEqual(["accepted", "rejected"]);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(h.secret);
    expect(stored).not.toContain(forged);
    expect(stored).toContain("[redacted]");
    expect(await runsOf(h.id)).toHaveLength(1);
  });

  it("generic HMAC with a timestamp header refuses stale deliveries", async () => {
    const h = await hook({
      verification: {
        preset: "hmac",
        header: "X-Sig",
        prefix: "",
        encoding: "base64",
        timestampHeader: "X-Ts",
      },
    });
    const sign = (ts: number, b: string) =>
      createHmac("sha256", h.secret).update(`${ts}.${b}`).digest("base64");
    const b = body("T-1");
    expect(
      (
        await send(h.path, {
          headers: { "x-sig": sign(nowSec(), b), "x-ts": String(nowSec()) },
          body: b,
        })
      ).status,
    ).toBe(202);
    const old = nowSec() - 301;
    const stale = await send(h.path, {
      headers: { "x-sig": sign(old, b), "x-ts": String(old) },
      body: b,
    });
    expect(stale.status).toBe(401);
    expect((await stale.json()).error.message).toMatch(/tolerance/);
  });

  it("GitHub: valid, tampered, missing, and a replayed delivery id → one run", async () => {
    const h = await hook({ verification: { preset: "github" } });
    const b = body("G-1");
    const headers = {
      "x-hub-signature-256": `sha256=${hex(h.secret, b)}`,
      "x-github-delivery": "d-1",
    };
    const first = await send(h.path, { headers, body: b });
    expect(first.status).toBe(202);
    const replay = await send(h.path, { headers, body: b });
    expect(replay.status).toBe(200);
    expect(await replay.json()).toEqual({ runId: (await first.json()).runId, duplicate: true });
    expect((await send(h.path, { headers, body: body("G-2") })).status).toBe(401);
    expect((await send(h.path, { headers: { "x-github-delivery": "d-2" }, body: b })).status).toBe(
      401,
    );
    expect(await runsOf(h.id)).toHaveLength(1);
    expect((await deliveries(h.id)).map((d) => d.status).sort()).toEqual([
      "accepted",
      "duplicate",
      "rejected",
      "rejected",
    ]);
  });

  it("Stripe: timestamped v1 signatures, several v1 values, stale and replayed events", async () => {
    const h = await hook({ verification: { preset: "stripe" } });
    const b = JSON.stringify({ id: "evt_1", order: { id: "S-1" } });
    const t = nowSec();
    const sig = hex(h.secret, `${t}.${b}`);
    const good = await send(h.path, {
      headers: { "stripe-signature": `t=${t},v1=${"0".repeat(64)},v1=${sig}` },
      body: b,
    });
    expect(good.status).toBe(202);
    // The same Stripe event again (its id is the delivery id) → the same run.
    const again = await send(h.path, {
      headers: { "stripe-signature": `t=${t},v1=${sig}` },
      body: b,
    });
    expect((await again.json()).duplicate).toBe(true);
    const old = t - 600;
    const stale = await send(h.path, {
      headers: { "stripe-signature": `t=${old},v1=${hex(h.secret, `${old}.${b}`)}` },
      body: b,
    });
    expect(stale.status).toBe(401);
    const tampered = await send(h.path, {
      headers: { "stripe-signature": `t=${t},v1=${sig}` },
      body: b.replace("S-1", "S-9"),
    });
    expect(tampered.status).toBe(401);
    expect(await runsOf(h.id)).toHaveLength(1);
  });

  it("Standard Webhooks: base64 key from whsec_, id.timestamp.body, replay by webhook-id", async () => {
    const h = await hook({ verification: { preset: "standard" } });
    const key = Buffer.from(h.secret.slice("whsec_".length), "base64");
    const sign = (id: string, ts: number, b: string) =>
      `v1,${createHmac("sha256", key).update(`${id}.${ts}.${b}`).digest("base64")}`;
    const b = body("W-1");
    const ts = nowSec();
    const headers = {
      "webhook-id": "msg_1",
      "webhook-timestamp": String(ts),
      "webhook-signature": `v1,bm9wZQ== ${sign("msg_1", ts, b)}`,
    };
    expect((await send(h.path, { headers, body: b })).status).toBe(202);
    expect((await send(h.path, { headers, body: b })).status).toBe(200);
    const stale = ts - 400;
    expect(
      (
        await send(h.path, {
          headers: {
            ...headers,
            "webhook-timestamp": String(stale),
            "webhook-signature": sign("msg_1", stale, b),
          },
          body: b,
        })
      ).status,
    ).toBe(401);
    expect(
      (await send(h.path, { headers: { ...headers, "webhook-id": "msg_2" }, body: b })).status,
    ).toBe(401);
    expect(await runsOf(h.id)).toHaveLength(1);
  });

  it("secret rotation: the old secret verifies during the grace period, not after", async () => {
    const h = await hook({ idempotency: "none" });
    const rotated = await rotateWebhookSecret({
      ctx: e.ws.ctx("editor"),
      input: { triggerId: h.id, graceMinutes: 60 },
    });
    expect(rotated.secret).not.toBe(h.secret);
    const b = body("R-1");
    const withSecret = (s: string) =>
      send(h.path, { headers: { "x-signature": `sha256=${hex(s, b)}` }, body: b });
    expect((await withSecret(h.secret)).status).toBe(202);
    expect((await withSecret(rotated.secret)).status).toBe(202);
    await e.db.db
      .update(triggers)
      .set({ previousSecretExpiresAt: new Date(Date.now() - 1000) })
      .where(eq(triggers.id, h.id));
    expect((await withSecret(h.secret)).status).toBe(401);
    expect((await withSecret(rotated.secret)).status).toBe(202);
  });
});

describe("webhook limits and delivery semantics", () => {
  it("10 concurrent duplicate deliveries create exactly one run", async () => {
    const h = await hook({ idempotency: "body_hash" });
    const b = body("D-1");
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        send(h.path, { headers: { "x-signature": `sha256=${hex(h.secret, b)}` }, body: b }),
      ),
    );
    const payloads = await Promise.all(answers.map((a) => a.json()));
    expect(answers.map((a) => a.status).sort()).toEqual([
      200, 200, 200, 200, 200, 200, 200, 200, 200, 202,
    ]);
    expect(new Set(payloads.map((p) => p.runId)).size).toBe(1);
    expect(await runsOf(h.id)).toHaveLength(1);
    const rows = await deliveries(h.id);
    expect(rows.filter((r) => r.status === "accepted")).toHaveLength(1);
    expect(rows.filter((r) => r.status === "duplicate")).toHaveLength(9);
    expect(rows[0]!.deliveryKey).toBe(`sha256:${createHash("sha256").update(b).digest("hex")}`);
  });

  it("rate limit → 429 with Retry-After, recorded", async () => {
    const h = await hook({
      verification: { preset: "none" },
      idempotency: "none",
      rateLimit: { perMinute: 1, burst: 2 },
    });
    const b = body("L-1");
    expect((await send(h.path, { body: b })).status).toBe(202);
    expect((await send(h.path, { body: b })).status).toBe(202);
    const limited = await send(h.path, { body: b });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await deliveries(h.id)).filter((d) => d.status === "rate_limited")).toHaveLength(1);
  });

  it("size limit → 413 by Content-Length and by a streamed body, before any parsing", async () => {
    const h = await hook({ verification: { preset: "none" }, maxBodyBytes: 1024 });
    const big = JSON.stringify({ order: { id: "x".repeat(2000) } });
    const declared = await send(h.path, {
      body: big,
      headers: { "content-length": String(big.length) },
    });
    expect(declared.status).toBe(413);
    const chunks = [
      new TextEncoder().encode(big.slice(0, 900)),
      new TextEncoder().encode(big.slice(900)),
    ];
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        const next = chunks.shift();
        if (next) c.enqueue(next);
        else c.close();
      },
    });
    const streamed = await send(h.path, { body: stream });
    expect(streamed.status).toBe(413);
    expect((await deliveries(h.id)).map((d) => d.status)).toEqual(["too_large", "too_large"]);
    expect(await runsOf(h.id)).toHaveLength(0);
  });

  it("method, path, disabled trigger, bad JSON and missing mapped values get clear errors", async () => {
    const h = await hook({ verification: { preset: "none" }, idempotency: "none" });
    const wrong = await send(h.path, { method: "PUT", body: body("M-1") });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("POST");
    expect((await send("no-such-hook", { body: "{}" })).status).toBe(404);
    const badJson = await send(h.path, { body: "{not json" });
    expect(badJson.status).toBe(400);
    expect((await badJson.json()).error.message).toMatch(/not valid JSON/);
    // Valid JSON that Postgres cannot store (a \u0000 escape, half a surrogate pair) → 400.
    for (const text of ['{"order":{"id":"A\\u0000B"}}', '{"order":{"id":"\\ud800"}}']) {
      const unstorable = await send(h.path, { body: text });
      expect(unstorable.status).toBe(400);
      expect((await unstorable.json()).error).toMatchObject({
        code: "unstorable_text",
        message: expect.stringContaining("body.order.id"),
      });
    }
    const unmapped = await send(h.path, { body: JSON.stringify({ other: 1 }) });
    expect(unmapped.status).toBe(422);
    expect((await unmapped.json()).error.message).toContain("order ← $.order.id");
    await setTriggerEnabled({
      ctx: e.ws.ctx("editor"),
      input: { triggerId: h.id, enabled: false },
    });
    expect((await send(h.path, { body: body("M-2") })).status).toBe(404);
    const reasons = (await deliveries(h.id)).map((d) => d.reason ?? "");
    expect(reasons.some((r) => r.includes("disabled"))).toBe(true);
    expect(await runsOf(h.id)).toHaveLength(0);
  });

  it("an empty body with a JSON content type → 400 empty_body, recorded; started only with allowEmptyBody", async () => {
    const ping = await e.workflow({
      schemaVersion: 1,
      name: "Ping",
      steps: [{ id: "echo", type: "transform", config: { value: "pong" } }],
      output: "{{ steps.echo.output.data }}",
    });
    const none = { verification: { preset: "none" }, idempotency: "none", mapping: {} };
    const strict = await hook(none, "Empty refused", ping);
    for (const [contentType, b] of [
      ["application/json", undefined],
      ["application/json; charset=utf-8", ""],
      ["application/vnd.api+json", " \n "],
    ] as const) {
      const res = await send(strict.path, { headers: { "content-type": contentType }, body: b });
      expect(res.status, contentType).toBe(400);
      expect((await res.json()).error).toEqual({
        code: "empty_body",
        message: `The request declares ${contentType.split(";")[0]} but has an empty body; send a JSON body, or allow empty bodies in the webhook's settings (allowEmptyBody)`,
      });
    }
    const rows = await deliveries(strict.id);
    expect(rows.map((r) => [r.status, r.httpStatus])).toEqual([
      ["rejected", 400],
      ["rejected", 400],
      ["rejected", 400],
    ]);
    expect(rows[0]!.reason).toContain("has an empty body");
    expect(await runsOf(strict.id)).toHaveLength(0);
    // A JSON body, even {}, is fine; so is an empty body that declares no JSON.
    expect((await send(strict.path, { body: "{}" })).status).toBe(202);
    expect((await send(strict.path, { headers: { "content-type": "text/plain" } })).status).toBe(
      202,
    );

    const lenient = await hook({ ...none, allowEmptyBody: true }, "Empty allowed", ping);
    const ok = await send(lenient.path, {});
    expect(ok.status).toBe(202);
    const run = await e.waitFor((await ok.json()).runId, ["completed", "failed"]);
    expect(run).toMatchObject({ status: "completed", output: "pong" });
    // A GET has no body by definition: never refused for it.
    const get = await hook({ ...none, method: "GET" }, "Empty GET", ping);
    expect((await send(get.path, { method: "GET" })).status).toBe(202);
  });

  it("maps query parameters and headers; sync mode answers the run's output", async () => {
    const h = await hook({
      verification: { preset: "none" },
      mapping: { order: "query.order" },
      mode: "sync",
      syncTimeoutSeconds: 20,
    });
    const res = await send(h.path, { body: "{}", query: "?order=Q-7" });
    expect(res.status).toBe(200);
    const answer = await res.json();
    expect(answer).toMatchObject({ status: "completed", output: "got Q-7" });
  });
});

describe("webhook mapping with optional inputs", () => {
  // A workflow with a required input, a required one with a default and two optional ones:
  //   version  (required)               ← $.release.version
  //   retries  (required, default 3)    ← header.x-retries
  //   env      (optional, "staging")    ← $.env
  //   note     (optional, no default)   ← query.note
  const definition = {
    schemaVersion: 1,
    name: "Release hook",
    inputs: {
      version: { type: "string", required: true },
      retries: { type: "number", required: true, default: 3 },
      env: { type: "string", default: "staging", enum: ["staging", "production"] },
      note: { type: "string" },
    },
    steps: [{ id: "echo", type: "return", config: { value: "{{ input }}" } }],
  };
  const mapping = {
    version: "$.release.version",
    retries: "header.x-retries",
    env: "$.env",
    note: "query.note",
  };

  for (const preset of ["hmac", "github", "stripe", "standard"] as const) {
    it(`the ${preset} sample request shown after creation starts a run with the defaults applied`, async () => {
      const h = await hook(
        { mapping, verification: { preset } },
        `Sample ${preset}`,
        await e.workflow(definition),
      );
      const shown = await getTrigger({ ctx: e.ws.ctx("viewer"), input: { triggerId: h.id } });
      expect(shown.sample).toContain('# Optional: env ← $.env (default "staging").');
      // The person pastes the snippet with their secret in place of the placeholder.
      const script = shown.sample!.replace("<your webhook secret>", h.secret);
      const sent = runSampleScript(script);
      const url = new URL(sent.url);
      const res = await send(url.pathname.replace("/api/hooks/", ""), {
        method: sent.method,
        headers: Object.fromEntries(sent.headers),
        body: sent.body ?? undefined,
        query: url.search,
      });
      expect(res.status, await res.clone().text()).toBe(202);
      const { runId } = await res.json();
      const run = await e.waitFor(runId, ["completed", "failed"]);
      expect(run).toMatchObject({
        status: "completed",
        input: { version: "example version", retries: 3, env: "staging" },
        output: { version: "example version", retries: 3, env: "staging" },
      });
    });
  }

  it("still refuses a delivery that lacks a required input with no default (422, named)", async () => {
    const h = await hook(
      { mapping, verification: { preset: "none" } },
      "Strict",
      await e.workflow(definition),
    );
    const res = await send(h.path, { body: JSON.stringify({ env: "production" }) });
    expect(res.status).toBe(422);
    expect((await res.json()).error.message).toBe(
      "Mapped values are missing from the request: version ← $.release.version",
    );
  });
});
