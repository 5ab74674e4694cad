/**
 * An event whose transaction read the pending waits before a wait was registered, and committed
 * after the wait's transaction did, still resumes that wait. Neither side saw the other: the
 * event's snapshot predates the wait, and a look-back run when the wait was registered predates
 * the event's commit. Under CI load this left a run of the parallel-stalls suite waiting out its
 * one-hour timeout. Postgres only: PGlite has one connection, so the two transactions cannot
 * overlap there (an open transaction would hold up the executor itself).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDriver } from "../../db/testing";
import { executorBridge, startHarness, testClient, type Harness } from "./testing";

const bridge = executorBridge();
const inngest = testClient("wait-commit-race", bridge);

/** Sleeps first, so the test can hold an event's transaction open before the wait exists. */
const napThenWait = inngest.createFunction(
  { id: "nap-then-wait", triggers: [{ event: "race/order" }] },
  async ({ step }) => {
    await step.sleep("nap", "1h");
    const paid = await step.waitForEvent("paid", {
      event: "race/paid",
      match: "data.orderId",
      timeout: "1h",
    });
    return { paidBy: (paid?.data as { by?: string } | undefined)?.by ?? null };
  },
);

let h: Harness;
beforeAll(async () => {
  if (testDriver() !== "postgres") return;
  h = await startHarness({ client: inngest, functions: [napThenWait], bridge, label: "waitrace" });
});
afterAll(async () => h?.close());

async function stepStatus(runId: string, name: string) {
  return (await h.executor.admin.getExecution(runId))?.steps.find((s) => s.name === name)?.status;
}

describe.skipIf(testDriver() !== "postgres")(
  "an event committed after a wait it could not see",
  () => {
    it("resumes the wait once the event commits", async () => {
      const [runId] = await h.executionsFor(await h.send("race/order", { orderId: "o-late" }));
      await h.until(async () => (await stepStatus(runId!, "nap")) === "sleeping", "the nap");

      await h.db.db.transaction(async (tx) => {
        // The event is stored and the waits are read now: there is none yet.
        const ids = await h.executor.sendInTransaction(
          tx,
          [{ name: "race/paid", data: { orderId: "o-late", by: "card" } }],
          { waitsOnly: true },
        );
        expect(ids).toHaveLength(1);
        // The run wakes and registers its wait (its own transaction commits) while this one is open.
        h.clock.advance(3_600_000 + 1_000);
        await h.until(async () => (await stepStatus(runId!, "paid")) === "waiting", "the wait");
      });

      const run = await h.waitForExecution(runId!);
      expect(run.status).toBe("completed");
      expect(run.output).toEqual({ paidBy: "card" });
      expect(run.history.filter((e) => e.type === "wait.resumed")).toHaveLength(1);
    });

    it("leaves a wait alone when the late event does not match it", async () => {
      const [runId] = await h.executionsFor(await h.send("race/order", { orderId: "o-mine" }));
      await h.until(async () => (await stepStatus(runId!, "nap")) === "sleeping", "the nap");
      await h.db.db.transaction(async (tx) => {
        await h.executor.sendInTransaction(
          tx,
          [{ name: "race/paid", data: { orderId: "o-other", by: "cash" } }],
          { waitsOnly: true },
        );
        h.clock.advance(3_600_000 + 1_000);
        await h.until(async () => (await stepStatus(runId!, "paid")) === "waiting", "the wait");
      });
      // The re-check runs after the commit; a matching event sent after it is the one that counts.
      await h.send("race/paid", { orderId: "o-mine", by: "transfer" });
      const run = await h.waitForExecution(runId!);
      expect(run.output).toEqual({ paidBy: "transfer" });
      expect(run.history.filter((e) => e.type === "wait.resumed")).toHaveLength(1);
    });
  },
);
