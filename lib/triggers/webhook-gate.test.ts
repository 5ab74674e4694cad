import { describe, expect, it } from "vitest";
import { filterMiss, headerMismatch } from "./webhook-gate";

const headers = new Headers({
  "x-github-event": "pull_request",
  "content-type": "application/json",
});
const get = (name: string) => headers.get(name);

describe("headerMismatch", () => {
  it("matches values exactly and names case-insensitively", () => {
    expect(headerMismatch(undefined, get)).toBeNull();
    expect(headerMismatch({ "X-GitHub-Event": "pull_request" }, get)).toBeNull();
    expect(headerMismatch({ "X-GitHub-Event": "push" }, get)).toBe(
      'header X-GitHub-Event is "pull_request", needs "push"',
    );
    expect(headerMismatch({ "X-GitHub-Event": "Pull_Request" }, get)).toBe(
      'header X-GitHub-Event is "pull_request", needs "Pull_Request"',
    );
    expect(headerMismatch({ "X-Hook-Kind": "order" }, get)).toBe(
      'header X-Hook-Kind missing, needs "order"',
    );
  });
});

describe("filterMiss", () => {
  const closed = {
    all: [
      { ref: "trigger.body.action", eq: "closed" },
      { ref: "trigger.body.pull_request.merged", eq: true },
    ],
  };
  it("lets a matching delivery through and explains a missed one", () => {
    expect(filterMiss(undefined, {})).toBeNull();
    expect(
      filterMiss(closed, { body: { action: "closed", pull_request: { merged: true } } }),
    ).toBeNull();
    expect(
      filterMiss(closed, { body: { action: "opened", pull_request: { merged: false } } }),
    ).toBe('filter: trigger.body.action is "opened", needs "closed"');
    expect(filterMiss(closed, { body: "not json" })).toBe(
      'filter: trigger.body.action missing, needs "closed"',
    );
  });

  it("reports a filter that cannot be evaluated instead of throwing", () => {
    expect(
      filterMiss(
        { ref: "trigger.body.text", matches: "^a" },
        { body: { text: "a".repeat(20_000) } },
      ),
    ).toMatch(/^filter could not be evaluated: .*at most 10000/);
  });
});
