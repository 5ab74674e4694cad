import { describe, expect, it } from "vitest";
import { mapIssues } from "@/components/forms/issues";
import { ScheduleConfig } from "@/lib/schemas/triggers";
import { initialValues, toConfig, TRIGGER_ISSUE_OPTIONS, triggerFormSchema } from "./values";

describe("trigger form values", () => {
  it("round-trips an existing webhook config through the form values", () => {
    const config = {
      method: "PUT",
      verification: {
        preset: "hmac",
        header: "X-Sig",
        prefix: "",
        encoding: "base64",
        timestampHeader: "X-Ts",
        toleranceSeconds: 60,
      },
      maxBodyBytes: 2048,
      mapping: { orderId: "$.order.id" },
      input: { channel: "#ops" },
      allowEmptyBody: true,
      idempotency: "body_hash",
      idHeader: "Idempotency-Key",
      rateLimit: { perMinute: 10, burst: 5 },
      mode: "sync",
      syncTimeoutSeconds: 20,
    };
    const values = initialValues("webhook", "Shop", config);
    expect(values.maxBodyKb).toBe(2);
    expect(toConfig("webhook", values)).toEqual({ config, problems: [] });
  });

  it("a GitHub, Stripe or Standard preset leaves out the hidden generic HMAC fields", () => {
    for (const preset of ["github", "stripe", "standard"]) {
      const values = initialValues("webhook", "Hook", {});
      values.verification = { ...values.verification, preset, header: "not a header!" };
      values.idHeader = "also bad!";
      const { config, problems } = toConfig("webhook", values);
      expect(problems).toEqual([]);
      expect(config.verification).toEqual({ preset, toleranceSeconds: 300 });
      expect(config).not.toHaveProperty("idHeader");
      const parsed = triggerFormSchema("webhook", { type: "edit", triggerId: "t" }).safeParse(
        values,
      );
      expect(parsed.success, preset).toBe(true);
    }
  });

  it("defaults a new schedule to weekday mornings in the workflow's zone, not the browser's", () => {
    const v = initialValues("schedule", "", {});
    expect(v.cron).toBe("0 9 * * 1-5");
    expect(v.timezone).toBe("");
    // No zone sent: the schedule inherits the workflow definition's timezone.
    expect(toConfig("schedule", v).config).not.toHaveProperty("timezone");
    // A zone typed in is an explicit override, and an existing override round-trips.
    v.timezone = " Europe/Berlin ";
    expect(toConfig("schedule", v).config).toMatchObject({ timezone: "Europe/Berlin" });
    const edited = initialValues("schedule", "S", { cron: "0 3 * * *", timezone: "Asia/Tokyo" });
    expect(toConfig("schedule", edited).config).toMatchObject({ timezone: "Asia/Tokyo" });
  });

  it("reports text problems at their field: JSON input, filter, unnamed mapping rows", () => {
    const v = {
      ...initialValues("event", "x", {}),
      event: "order.paid",
      input: "{",
      filter: "[1]",
      mapping: [{ name: "", source: "$.id" }],
    };
    expect(
      toConfig("event", v)
        .problems.map((p) => p.path[0])
        .sort(),
    ).toEqual(["filter", "input", "mapping"]);
  });

  it("the schema places every issue where the dialog shows it", async () => {
    const schema = triggerFormSchema("webhook", { type: "create", workflowId: "wf_1" });
    const values = {
      ...initialValues("webhook", "  ", {}),
      path: "X",
      maxBodyKb: 1e9,
      verification: { ...initialValues("webhook", "", {}).verification, header: "bad header" },
    };
    const r = await schema.safeParseAsync(values);
    expect(r.success).toBe(false);
    if (r.success) return;
    const { byField, unplaced } = mapIssues(r.error.issues, TRIGGER_ISSUE_OPTIONS);
    expect(byField.name).toBe("Give the trigger a name");
    expect(Object.keys(byField).sort()).toEqual([
      "maxBodyKb",
      "name",
      "path",
      "verification.header",
    ]);
    expect(unplaced).toEqual([]);
  });

  it("a valid form becomes the create input (or the update input when editing)", async () => {
    const values = {
      ...initialValues("schedule", "Nightly", {}),
      cron: "30 2 * * *",
      timezone: "UTC",
    };
    const created = await triggerFormSchema("schedule", {
      type: "create",
      workflowId: "wf_1",
    }).safeParseAsync(values);
    expect(created.success && created.data.type === "create" && created.data.input).toMatchObject({
      kind: "schedule",
      workflowId: "wf_1",
      name: "Nightly",
      config: { cron: "30 2 * * *", timezone: "UTC" },
    });
    const edited = await triggerFormSchema("schedule", {
      type: "edit",
      triggerId: "trg_1",
    }).safeParseAsync(values);
    expect(edited.success && edited.data).toEqual({
      type: "edit",
      input: { triggerId: "trg_1", name: "Nightly", config: toConfig("schedule", values).config },
    });
  });

  it("server paths (config.…) and client config paths reach the same fields", () => {
    const mapped = mapIssues(
      [
        { path: ["config", "cron"], message: "bad cron" },
        { path: ["config", "cron"], message: "second message is dropped" },
        { path: ["config", "verification", "header"], message: "bad header" },
        { path: ["config", "mapping", "orderId"], message: "bad source" },
        { path: ["config", "maxBodyBytes"], message: "too big" },
        { path: ["name"], message: "a name" },
        { path: [], message: "whole form" },
      ],
      TRIGGER_ISSUE_OPTIONS,
    );
    expect(mapped.byField).toEqual({
      cron: "bad cron",
      "verification.header": "bad header",
      mapping: "bad source",
      maxBodyKb: "too big",
      name: "a name",
    });
    expect(mapped.unplaced).toEqual([{ key: "_form", message: "whole form" }]);
    const r = ScheduleConfig.safeParse({ cron: "x", catchUpWindowMinutes: 0 });
    expect(r.success).toBe(false);
    if (!r.success)
      expect(Object.keys(mapIssues(r.error.issues, TRIGGER_ISSUE_OPTIONS).byField).sort()).toEqual([
        "catchUpWindowMinutes",
        "cron",
      ]);
  });
});
