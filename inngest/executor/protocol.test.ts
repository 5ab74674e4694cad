/**
 * What goes over the wire (protocol §2–§3): classic async mode (never `ctx.fn_id`), `max_attempts`,
 * the stack in completion order, `disable_immediate_execution` while race siblings are pending,
 * and the in-band sync request.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executorBridge, startHarness, testClient, type Harness } from "./testing";
import type { TransportRequest } from "./transport";

const bridge = executorBridge();
const inngest = testClient("proto", bridge);
type Body = { url?: string; version?: number; steps?: Record<string, unknown>; ctx?: Record<string, unknown> & { run_id: string; stack: { stack: string[] } } };
const calls: Array<{ req: TransportRequest; body: Body; status: number }> = [];

const ordered = inngest.createFunction({ id: "ordered", retries: 2, triggers: [{ event: "p/ordered" }] }, async ({ step }) => {
  const [slow, fast] = await Promise.all([
    step.run("slow", async () => {
      await new Promise((r) => setTimeout(r, 100));
      return "slow";
    }),
    step.run("fast", () => "fast"),
  ]);
  return step.run("last", () => `${fast}-${slow}`);
});

const race = inngest.createFunction({ id: "race", triggers: [{ event: "p/race" }] }, async ({ step, group }) => {
  const winner = await group.parallel({ mode: "race" }, () =>
    Promise.race([
      step.run("quick", () => "quick"),
      step.run("slowpoke", async () => {
        await new Promise((r) => setTimeout(r, 150));
        return "slowpoke";
      }),
    ]),
  );
  return winner;
});

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    client: inngest,
    functions: [ordered, race],
    bridge,
    label: "protocol",
    onCall: (req, res) => calls.push({ req, body: (req.body ? JSON.parse(req.body) : {}) as Body, status: res.status }),
  });
});
afterAll(async () => h?.close());

const sha1 = async (s: string) => (await import("node:crypto")).createHash("sha1").update(s).digest("hex");

describe("wire protocol", () => {
  it("syncs in-band with a PUT carrying the serve URL", () => {
    const sync = calls.find((c) => c.req.method === "PUT")!;
    expect(sync.req.headers["x-inngest-sync-kind"]).toBe("in_band");
    expect(sync.body).toEqual({ url: "http://app.test/api/inngest" });
    expect(sync.status).toBe(200);
  });

  it("drives classic async mode: no fn_id, max_attempts, version 2, stack in completion order", async () => {
    const run = await h.trigger("p/ordered");
    expect(run.output).toBe("fast-slow");
    const mine = calls.filter((c) => c.req.method === "POST" && c.body.ctx?.run_id === run.id);
    expect(mine.length).toBeGreaterThanOrEqual(4);
    for (const c of mine) {
      expect(c.body.ctx).not.toHaveProperty("fn_id");
      expect(c.body.ctx!.max_attempts).toBe(3);
      expect(c.body.version).toBe(2);
      expect(c.req.url).toContain("fnId=proto-ordered");
      expect(c.req.headers).not.toHaveProperty("x-inngest-signature"); // dev mode
    }
    // The discovery after both siblings lists them in the order they finished: fast, then slow.
    const last = mine.at(-1)!;
    expect(last.body.ctx!.stack.stack.slice(0, 2)).toEqual([await sha1("fast"), await sha1("slow")]);
    expect(Object.keys(last.body.steps!)).toEqual(expect.arrayContaining([await sha1("fast"), await sha1("slow")]));
    // Each planned sibling got its own targeted call.
    const targeted = mine.filter((c) => !c.req.url.endsWith("stepId=step")).map((c) => new URL(c.req.url).searchParams.get("stepId"));
    expect(targeted.sort()).toEqual([await sha1("fast"), await sha1("slow")].sort());
  });

  it("sets disable_immediate_execution on a discovery made while a race sibling is pending", async () => {
    const run = await h.trigger("p/race");
    expect(run.output).toBe("quick");
    const discoveries = calls.filter((c) => c.body.ctx?.run_id === run.id && c.req.url.endsWith("stepId=step"));
    const withPending = discoveries.filter((c) => c.body.ctx!.stack.stack.length === 1);
    expect(withPending.length).toBeGreaterThan(0);
    for (const d of withPending) expect(d.body.ctx!.disable_immediate_execution).toBe(true);
    expect(discoveries[0]!.body.ctx!.disable_immediate_execution).toBe(false);
    expect(run.steps.filter((s) => s.status === "completed").map((s) => s.name)).toEqual(["quick", "slowpoke"]);
  });
});
