/**
 * Built-in starting points for a new workflow. Each shows off part of the language and runs green
 * out of the box: every input has a default (the run form comes prefilled) and no step calls an
 * outside service. Tests validate each one and run it through the real engine
 * (server/services/workflows/starters.test.ts), so they stay correct as the language evolves.
 */
export interface Starter {
  id: string;
  name: string;
  description: string;
  definition: Record<string, unknown>;
}

export const STARTERS: Starter[] = [
  {
    id: "blank",
    name: "Blank",
    description: "One step that returns its input. Start from scratch.",
    definition: {
      schemaVersion: 1,
      name: "Untitled workflow",
      inputs: {},
      steps: [{ id: "done", type: "return", name: "Done", config: { value: "{{ input }}" } }],
    },
  },
  {
    id: "release-train",
    name: "Release train",
    description:
      "Build release notes, ask a human, then announce the deploy as an event — or return why it was declined.",
    // Runs with no outside service: the deploy is a `release.approved` event (an event trigger
    // or an HTTP step to your deploy system takes it from there), and a rejection is a handled
    // outcome — the run completes with `shipped: false` and the approver's reason.
    definition: {
      schemaVersion: 1,
      name: "Release train",
      description: "Prepare, ask, deploy",
      inputs: {
        version: {
          type: "string",
          required: true,
          default: "1.0.0",
          description: "Semver of the release",
        },
        environment: { type: "string", default: "staging", enum: ["staging", "production"] },
      },
      constraints: { maxParallel: 2, timeoutMs: 86_400_000 },
      steps: [
        {
          id: "notes",
          type: "transform",
          name: "Release notes",
          config: {
            value: { title: "Release {{ input.version }}", target: "{{ input.environment }}" },
          },
        },
        {
          id: "approve",
          type: "approval",
          name: "Ship it?",
          config: {
            prompt: "Ship {{ input.version }} to {{ input.environment }}?",
            items: ["{{ steps.notes.output.data.title }}"],
            approvers: { roles: ["approver", "admin", "owner"] },
            timeout: "24h",
            onTimeout: "reject",
          },
        },
        {
          id: "deploy",
          type: "emit_event",
          name: "Deploy",
          config: {
            event: "release.approved",
            data: {
              version: "{{ input.version }}",
              environment: "{{ input.environment }}",
              notes: "{{ steps.notes.output.data }}",
            },
          },
        },
        {
          id: "shipped",
          type: "return",
          name: "Shipped",
          config: {
            value: {
              shipped: true,
              version: "{{ input.version }}",
              environment: "{{ input.environment }}",
            },
          },
        },
        {
          id: "declined",
          type: "return",
          name: "Declined",
          config: {
            value: {
              shipped: false,
              version: "{{ input.version }}",
              reason: "{{ steps.approve.output.data.reason }}",
            },
          },
        },
      ],
      edges: [
        { from: "notes", to: "approve" },
        { from: "approve", port: "approved", to: "deploy", onFailure: "fail_run" },
        { from: "deploy", to: "shipped" },
        { from: "approve", port: "rejected", to: "declined" },
      ],
    },
  },
  {
    id: "triage-branch",
    name: "Triage with branches",
    description:
      "Route by a condition — page on-call with an event or queue it — and join the branches.",
    definition: {
      schemaVersion: 1,
      name: "Triage",
      inputs: {
        severity: { type: "number", required: true, default: 3, description: "1 (low) to 5" },
        title: { type: "string", required: true, default: "Checkout is slow" },
      },
      steps: [
        {
          id: "classify",
          type: "condition",
          name: "Urgent?",
          config: { condition: { ref: "input.severity", gte: 3 } },
        },
        {
          id: "page",
          type: "emit_event",
          name: "Page on-call",
          config: { event: "incident.urgent", data: { title: "{{ input.title }}" } },
        },
        {
          id: "queue",
          type: "transform",
          name: "Queue it",
          config: { value: { queued: "{{ input.title }}" } },
        },
        {
          id: "summary",
          type: "transform",
          name: "Summary",
          config: { value: { title: "{{ input.title }}", severity: "{{ input.severity }}" } },
        },
      ],
      edges: [
        { from: "classify", port: "true", to: "page" },
        { from: "classify", port: "false", to: "queue" },
        { from: "page", to: "summary" },
        { from: "queue", to: "summary" },
      ],
      output: "{{ steps.summary.output.data }}",
    },
  },
  {
    id: "batch-loop",
    name: "Process a list",
    description: "Loop over items with bounded concurrency, wait a moment, and return the results.",
    definition: {
      schemaVersion: 1,
      name: "Process a list",
      inputs: {
        items: {
          type: "array",
          required: true,
          default: ["apples", "pears", "plums"],
          description: "Things to process",
        },
      },
      steps: [
        {
          id: "each",
          type: "loop",
          name: "For each item",
          config: {
            items: "{{ input.items }}",
            concurrency: 2,
            maxItems: 100,
            body: {
              steps: [
                {
                  id: "shape",
                  type: "transform",
                  config: { value: { index: "{{ loop.index }}", item: "{{ loop.item }}" } },
                },
              ],
            },
          },
        },
        { id: "pause", type: "delay", name: "Cool down", config: { duration: "5s" } },
        { id: "result", type: "return", config: { value: "{{ steps.each.output.data }}" } },
      ],
    },
  },
];

export function findStarter(id: string | undefined): Starter | undefined {
  return STARTERS.find((s) => s.id === (id ?? "blank"));
}
