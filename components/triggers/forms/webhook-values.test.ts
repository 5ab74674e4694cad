import { describe, expect, it } from "vitest";
import { mapIssues } from "@/components/forms/issues";
import { initialValues, toConfig, TRIGGER_ISSUE_OPTIONS, triggerFormSchema } from "./values";

describe("webhook form: required headers, filter and repository ref", () => {
  const config = {
    verification: { preset: "github", toleranceSeconds: 300 },
    requireHeaders: { "X-GitHub-Event": "pull_request" },
    filter: {
      all: [
        { ref: "trigger.body.action", eq: "closed" },
        { ref: "trigger.body.pull_request.merged", eq: true },
      ],
    },
    repositoryRef: "$.after",
  };

  it("round-trips through the form values and leaves blank ones out", () => {
    const values = initialValues("webhook", "GitHub", config);
    expect(values.repositoryRef).toBe("$.after");
    expect(toConfig("webhook", values).config).toMatchObject(config);
    const blank = toConfig("webhook", initialValues("webhook", "Plain", {})).config;
    expect(blank).not.toHaveProperty("requireHeaders");
    expect(blank).not.toHaveProperty("filter");
    expect(blank).not.toHaveProperty("repositoryRef");
  });

  it("places JSON text and config problems at the fields that edit them", async () => {
    const values = initialValues("webhook", "GitHub", {});
    values.requireHeaders = "[1]";
    values.filter = '{ "ref": "body.action", "eq": "closed" }';
    values.repositoryRef = "{{ body.after }}";
    const r = await triggerFormSchema("webhook", { type: "edit", triggerId: "t" }).safeParseAsync(
      values,
    );
    expect(r.success).toBe(false);
    if (r.success) return;
    const { byField, unplaced } = mapIssues(r.error.issues, TRIGGER_ISSUE_OPTIONS);
    expect(byField).toEqual({
      requireHeaders: 'Must be a JSON object, e.g. {"key": "value"}',
      filter: expect.stringContaining('Unknown reference root "body"'),
      repositoryRef: "a source such as $.order.id, query.name or header.x-request-id",
    });
    expect(unplaced).toEqual([]);

    // A repeated header (case-insensitive) lands on the headers field, as the server's
    // config.requireHeaders.<name> issue does.
    values.requireHeaders = '{ "X-GitHub-Event": "push", "x-github-event": "pull_request" }';
    values.filter = "";
    values.repositoryRef = "";
    const again = await triggerFormSchema("webhook", {
      type: "edit",
      triggerId: "t",
    }).safeParseAsync(values);
    expect(again.success).toBe(false);
    if (again.success) return;
    expect(mapIssues(again.error.issues, TRIGGER_ISSUE_OPTIONS).byField).toEqual({
      requireHeaders:
        '"x-github-event" repeats "X-GitHub-Event": header names are case-insensitive',
    });
    expect(
      mapIssues(
        [{ path: ["config", "requireHeaders", "x-github-event"], message: "server says" }],
        TRIGGER_ISSUE_OPTIONS,
      ).byField,
    ).toEqual({ requireHeaders: "server says" });
  });
});
