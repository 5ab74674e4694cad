import { describe, expect, it } from "vitest";
import { WebhookConfig } from "@/lib/schemas/triggers";
import {
  deliveryTone,
  dstNote,
  formatOffset,
  mappingToRows,
  ownerLabel,
  parseJsonObject,
  shownConfig,
  prettyJson,
  rowsToMapping,
  runTone,
  triggerSummary,
} from "./trigger-model";

describe("triggerSummary", () => {
  it("shows method + URL for webhooks, cron + zone for schedules, the pattern for events", () => {
    expect(
      triggerSummary({ kind: "webhook", url: "http://x/api/hooks/abc", config: { method: "PUT" } }),
    ).toBe("PUT http://x/api/hooks/abc");
    expect(
      triggerSummary({
        kind: "schedule",
        config: { cron: "0 9 * * 1-5", timezone: "Europe/Berlin" },
      }),
    ).toBe("0 9 * * 1-5 · Europe/Berlin (overrides the workflow's UTC)");
    expect(
      triggerSummary({
        kind: "schedule",
        config: { cron: "0 9 * * 1-5" },
        schedule: { timezone: "Asia/Tokyo", source: "workflow", workflowTimezone: "Asia/Tokyo" },
      }),
    ).toBe("0 9 * * 1-5 · Asia/Tokyo (the workflow's zone)");
    expect(triggerSummary({ kind: "event", config: { event: "order.*" } })).toBe("order.*");
  });
});

describe("shownConfig", () => {
  const webhook = (preset: string) =>
    WebhookConfig.parse({ verification: { preset }, mapping: { a: "$.a" } });

  it("hides the generic HMAC settings for the other presets, keeps them for generic HMAC", () => {
    expect(shownConfig("webhook", webhook("hmac"))).toEqual(webhook("hmac"));
    for (const preset of ["github", "stripe", "standard", "none"]) {
      const shown = shownConfig("webhook", webhook(preset)) as Record<string, unknown>;
      expect(shown).not.toHaveProperty("idHeader");
      expect(JSON.stringify(shown)).not.toMatch(/X-Signature|sha256=|encoding/);
      expect(shown.mapping).toEqual({ a: "$.a" });
    }
    expect(shownConfig("webhook", webhook("stripe"))).toMatchObject({
      verification: { preset: "stripe", toleranceSeconds: 300 },
    });
    expect(shownConfig("schedule", { cron: "* * * * *" })).toEqual({ cron: "* * * * *" });
  });
});

describe("tones", () => {
  it("colours rejected and failed deliveries as danger, accepted as ok", () => {
    expect(deliveryTone("accepted")).toBe("ok");
    expect(deliveryTone("rejected")).toBe("danger");
    expect(deliveryTone("rate_limited")).toBe("warn");
    expect(deliveryTone("missed")).toBe("warn");
    expect(runTone("completed")).toBe("ok");
    expect(runTone("timed_out")).toBe("danger");
    expect(runTone(null)).toBe("");
  });
});

describe("mapping rows", () => {
  it("drops blank rows, trims, and round-trips", () => {
    const rows = [
      { name: " orderId ", source: " $.order.id " },
      { name: "", source: "" },
      { name: "who", source: "query.who" },
    ];
    const m = rowsToMapping(rows);
    expect(m).toEqual({ orderId: "$.order.id", who: "query.who" });
    expect(mappingToRows(m)).toEqual([
      { name: "orderId", source: "$.order.id" },
      { name: "who", source: "query.who" },
    ]);
    expect(mappingToRows(undefined)).toEqual([]);
  });
});

describe("parseJsonObject", () => {
  it("accepts blank (default) and objects, refuses arrays, scalars and bad JSON", () => {
    expect(parseJsonObject("  ")).toEqual({ ok: true, value: undefined });
    expect(parseJsonObject('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseJsonObject("[1]").ok).toBe(false);
    expect(parseJsonObject("3").ok).toBe(false);
    const bad = parseJsonObject("{a:");
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toMatch(/^Not valid JSON/);
  });
  it("prettyJson leaves empty objects blank", () => {
    expect(prettyJson({})).toBe("");
    expect(prettyJson(undefined)).toBe("");
    expect(prettyJson({ a: 1 })).toBe('{\n  "a": 1\n}');
  });
});

describe("DST notes", () => {
  it("describes gaps and repeats, nothing otherwise", () => {
    expect(dstNote({ dstGap: { wallTimes: ["02:30"], handling: "shifted" } })?.kind).toBe("gap");
    expect(dstNote({ dstGap: { wallTimes: ["02:30"], handling: "skipped" } })?.text).toMatch(
      /skipped/,
    );
    expect(dstNote({ dstRepeat: { occurrence: "second", firesTwice: true } })?.text).toMatch(
      /both times/,
    );
    expect(dstNote({})).toBeNull();
  });
  it("formats UTC offsets", () => {
    expect(formatOffset(120)).toBe("UTC+02:00");
    expect(formatOffset(-330)).toBe("UTC-05:30");
    expect(formatOffset(0)).toBe("UTC+00:00");
  });
});

describe("ownerLabel", () => {
  it("names the owner, or says runs are refused when they are gone", () => {
    expect(ownerLabel({ name: "Ada", email: "ada@x.dev", status: "member" })).toBe(
      "Ada (ada@x.dev) — runs count against their limits",
    );
    expect(ownerLabel({ name: "Bob", email: "bob@x.dev", status: "removed" })).toMatch(
      /^Bob \(bob@x\.dev\), no longer a member — runs are refused/,
    );
    expect(ownerLabel({ name: null, email: null, status: "deleted" })).toMatch(
      /^deleted account — runs are refused/,
    );
  });
});
