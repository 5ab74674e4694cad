/**
 * Built-in starting points for a new workflow. Each shows off part of the language; a test
 * checks that every one validates, so they stay correct as the language evolves.
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
      "Build a release note, ask a human, then deploy over HTTP — or explain the rejection.",
    definition: {
      schemaVersion: 1,
      name: "Release train",
      description: "Prepare, ask, deploy",
      inputs: {
        version: { type: "string", required: true, description: "Semver of the release" },
        environment: { type: "string", default: "staging", enum: ["staging", "production"] },
      },
      variables: { deployUrl: "https://deploy.example.com/api/releases" },
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
          type: "http",
          name: "Deploy",
          config: {
            method: "POST",
            url: "{{ vars.deployUrl }}",
            body: { version: "{{ input.version }}", env: "{{ input.environment }}" },
          },
          retry: { maxAttempts: 3, backoffMs: [5000, 30000] },
        },
        {
          id: "declined",
          type: "transform",
          name: "Declined",
          config: { value: "Release {{ input.version }} was not approved" },
        },
      ],
      edges: [
        { from: "notes", to: "approve" },
        { from: "approve", port: "approved", to: "deploy", onFailure: "fail_run" },
        { from: "approve", port: "rejected", to: "declined" },
      ],
      output: "{{ steps.deploy.output.data }}",
    },
  },
  {
    id: "triage-branch",
    name: "Triage with branches",
    description:
      "Route by a condition, join the branches, and handle a failing call on its error port.",
    definition: {
      schemaVersion: 1,
      name: "Triage",
      inputs: {
        severity: { type: "number", required: true },
        title: { type: "string", required: true },
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
      inputs: { items: { type: "array", required: true, description: "Things to process" } },
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
