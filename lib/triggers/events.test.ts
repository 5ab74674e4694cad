import { describe, expect, it } from "vitest";
import { eventNameMatches, matchEvent } from "./events";

describe("event trigger matching", () => {
  it("matches exact names and prefix patterns only", () => {
    expect(eventNameMatches("order.paid", "order.paid")).toBe(true);
    expect(eventNameMatches("order.paid", "order.paid.late")).toBe(false);
    expect(eventNameMatches("order.*", "order.paid")).toBe(true);
    expect(eventNameMatches("order.*", "orders.paid")).toBe(false);
    expect(eventNameMatches("*", "anything")).toBe(true);
  });

  it("applies field filters to the event as trigger.*", () => {
    const cfg = {
      event: "order.*",
      filter: {
        all: [
          { ref: "trigger.data.total", gte: 100 },
          { ref: "trigger.data.currency", eq: "EUR" },
        ],
      },
    };
    const ev = (data: unknown) => ({ id: "e1", name: "order.paid", data });
    expect(matchEvent(cfg, ev({ total: 120, currency: "EUR" }))).toEqual({ matches: true });
    expect(matchEvent(cfg, ev({ total: 99, currency: "EUR" }))).toEqual({
      matches: false,
      reason: "filter not met",
    });
    expect(matchEvent(cfg, { ...ev({}), name: "invoice.paid" })).toEqual({
      matches: false,
      reason: "name does not match",
    });
  });
});
