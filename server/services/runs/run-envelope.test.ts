import { describe, expect, it } from "vitest";
import { RUN_STATUSES } from "@/lib/workflow/status";
import { envelopeStatus } from "./run-envelope";

describe("envelopeStatus", () => {
  it("maps every run status, with and without an open gate", () => {
    const table = Object.fromEntries(
      RUN_STATUSES.map((s) => [s, [envelopeStatus(s, false), envelopeStatus(s, true)]]),
    );
    expect(table).toEqual({
      queued: ["running", "needs_approval"],
      running: ["running", "needs_approval"],
      waiting: ["running", "needs_approval"],
      // A cancel is under way: the gate is about to close, nothing to decide.
      cancel_requested: ["running", "running"],
      completed: ["ok", "ok"],
      failed: ["failed", "failed"],
      cancelled: ["cancelled", "cancelled"],
      timed_out: ["failed", "failed"],
    });
  });
});
