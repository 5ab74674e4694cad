import { describe, expect, it } from "vitest";
import type { z } from "zod";
import {
  configFieldDocs,
  defaultPortOf,
  ERROR_PORT,
  portsOf,
  SIDE_EFFECT_STEP_TYPES,
  STEP_CATALOG,
  STEP_TYPES,
  WAITING_STEP_TYPES,
} from "./catalog";

/** The smallest valid config per type, and defaults that parsing must fill in. */
const MINIMAL: Record<
  (typeof STEP_TYPES)[number],
  { config: unknown; defaults: Record<string, unknown> }
> = {
  transform: { config: { value: 1 }, defaults: {} },
  condition: { config: { condition: { ref: "input.ok" } }, defaults: {} },
  http: {
    config: { url: "https://api.example.com" },
    defaults: {
      method: "GET",
      headers: {},
      query: {},
      timeoutMs: 30000,
      allowedDomains: [],
      maxResponseBytes: 1048576,
    },
  },
  script: { config: { command: "ls" }, defaults: { env: {}, secrets: {}, timeoutMs: 120000 } },
  code: {
    config: { source: "export default function (input) { return input; }" },
    defaults: { timeoutMs: 10000, memoryMb: 64 },
  },
  llm: { config: { prompt: "Hi" }, defaults: { temperature: 0, json: false } },
  agent: { config: { goal: "Do it" }, defaults: { tools: [], maxIterations: 8 } },
  approval: {
    config: { prompt: "Ship?" },
    defaults: {
      approvers: {},
      quorum: 1,
      timeout: "24h",
      onTimeout: "reject",
      allowInitiator: false,
    },
  },
  delay: { config: { duration: "10m" }, defaults: {} },
  wait_for_event: { config: { event: "order.paid", timeout: "1h" }, defaults: { match: {} } },
  emit_event: { config: { event: "order.paid" }, defaults: { data: {} } },
  loop: {
    config: { items: "{{ steps.list.output.data }}", workflow: "child" },
    defaults: { concurrency: 1, maxItems: 100 },
  },
  subworkflow: { config: { workflow: "child" }, defaults: { input: {} } },
  notify: {
    config: { channel: "email", target: "ops@example.com", message: "Done" },
    defaults: {},
  },
  propose_change: {
    config: { summary: "Tweak", patch: [{ op: "replace", path: "/name", value: "x" }] },
    defaults: {},
  },
  return: { config: {}, defaults: { value: null } },
  task: {
    config: { instructions: "Review it", assignee: { roles: ["editor"] } },
    defaults: { timeout: "24h", onTimeout: "fail" },
  },
  tool: {
    config: { server: "github", tool: "search" },
    defaults: { arguments: {}, timeoutMs: 30000 },
  },
};

describe("catalog", () => {
  it("has exactly one entry per SPEC §4 step type", () => {
    expect(STEP_TYPES).toEqual([
      "transform",
      "condition",
      "http",
      "script",
      "code",
      "llm",
      "agent",
      "approval",
      "delay",
      "wait_for_event",
      "emit_event",
      "loop",
      "subworkflow",
      "notify",
      "propose_change",
      "return",
      "task",
      "tool",
    ]);
    expect(Object.keys(STEP_CATALOG).sort()).toEqual([...STEP_TYPES].sort());
    for (const type of STEP_TYPES) {
      const info = STEP_CATALOG[type];
      expect(info.type).toBe(type);
      expect(info.label.length).toBeGreaterThan(1);
      expect(info.description.length).toBeGreaterThan(10);
      expect(info.icon).toMatch(/^[a-z][a-z-]*$/);
      expect(info.output.length).toBeGreaterThan(3);
    }
  });

  it("declares ports per SPEC §3; every step also has the error port", () => {
    expect(STEP_CATALOG.condition.ports).toEqual(["true", "false"]);
    expect(STEP_CATALOG.approval.ports).toEqual(["approved", "rejected"]);
    expect(STEP_CATALOG.loop.ports).toEqual(["done"]);
    expect(STEP_CATALOG.return.ports).toEqual([]);
    expect(STEP_CATALOG.http.ports).toEqual(["success"]);
    expect(STEP_CATALOG.task.ports).toEqual(["success"]);
    for (const type of STEP_TYPES) {
      expect(portsOf(type)).toContain(ERROR_PORT);
      const info = STEP_CATALOG[type];
      if (info.defaultPort !== null) expect(info.ports).toContain(info.defaultPort);
    }
    expect(defaultPortOf("condition")).toBe("true");
    expect(defaultPortOf("constructor")).toBe("success");
  });

  it("flags side effects and waits", () => {
    expect([...SIDE_EFFECT_STEP_TYPES].sort()).toEqual([
      "agent",
      "emit_event",
      "http",
      "llm",
      "notify",
      "propose_change",
      "script",
      "subworkflow",
      "tool",
    ]);
    expect(WAITING_STEP_TYPES).toEqual(["approval", "delay", "wait_for_event", "task"]);
  });

  it.each(STEP_TYPES)("%s: the minimal config parses and gets its defaults", (type) => {
    const { config, defaults } = MINIMAL[type];
    const parsed = STEP_CATALOG[type].config.parse(config) as Record<string, unknown>;
    expect(parsed).toMatchObject(defaults);
  });

  it.each(STEP_TYPES)("%s: every config field is documented", (type) => {
    const docs = configFieldDocs(type);
    for (const [field, text] of Object.entries(docs))
      expect(text, `${type}.config.${field}`).not.toBe("");
  });

  it.each(STEP_TYPES)("%s: secretFields and templateModes name real config fields", (type) => {
    const shape = (STEP_CATALOG[type].config as z.ZodObject).shape as Record<string, unknown>;
    for (const field of STEP_CATALOG[type].secretFields) expect(shape, field).toHaveProperty(field);
    for (const field of Object.keys(STEP_CATALOG[type].templateModes))
      expect(shape, field).toHaveProperty(field);
  });

  it("config schemas are strict", () => {
    const result = STEP_CATALOG.http.config.safeParse({ url: "https://x.example", metod: "POST" });
    expect(result.success).toBe(false);
  });
});
