/**
 * validateDefinition's per-step policy checks: forbidden types, waits beyond the run deadline,
 * private addresses, MCP tools and proposed definitions.
 */
import { STEP_CATALOG } from "./catalog";
import { formatDuration, tryParseDuration } from "./duration";
import { fieldText, makeIssue, type IssuePath } from "./issues";
import { didYouMean, isPlainObject, quote } from "./json";
import { SAVED_WORKFLOW_STEP_TYPES } from "./step-traits";
import { isStepType } from "./steps";
import type { Checker, StepView } from "./validate-model";
import { classifyIp, parseIp } from "../net/ip";

export function checkStepPolicy(checker: Checker, view: StepView): void {
  const { issues, constraints, options } = checker;
  const subject = `Step ${quote(view.id)} (${view.type})`;
  if (constraints.forbidden.has(view.type)) {
    issues.push(
      makeIssue(
        "FORBIDDEN_STEP_TYPE",
        `${subject}: ${quote(view.type)} steps are forbidden by this workflow's constraints.forbiddenStepTypes.`,
        [...view.path, "type"],
        { stepId: view.id },
      ),
    );
  } else if (options.forbiddenStepTypes?.includes(view.type)) {
    issues.push(
      makeIssue(
        "FORBIDDEN_STEP_TYPE",
        `${subject}: ${quote(view.type)} steps are forbidden by the workspace policy.`,
        [...view.path, "type"],
        { stepId: view.id },
      ),
    );
  }
  if (options.inline && (SAVED_WORKFLOW_STEP_TYPES as readonly string[]).includes(view.type)) {
    issues.push(
      makeIssue(
        "NEEDS_SAVED_WORKFLOW",
        `${subject}: ${quote(view.type)} steps need a saved workflow; publish it and run that instead of running it inline.`,
        [...view.path, "type"],
        { stepId: view.id },
      ),
    );
  }
  if (view.type === "propose_change" && !constraints.allowSelfModification) {
    issues.push(
      makeIssue(
        "SELF_MODIFICATION_DISABLED",
        `${subject}: proposals need constraints.allowSelfModification set to true.`,
        [...view.path, "type"],
        { stepId: view.id },
      ),
    );
  }
  if (isStepType(view.type) && STEP_CATALOG[view.type].waits && view.raw.timeoutMs !== undefined) {
    const instead = view.type === "delay" ? "the delay itself" : "config.timeout";
    issues.push(
      makeIssue(
        "IGNORED_FIELD",
        `${subject}: timeoutMs is ignored on ${view.type} steps; use ${instead}.`,
        [...view.path, "timeoutMs"],
        { stepId: view.id },
      ),
    );
  }
  const config = isPlainObject(view.raw.config) ? view.raw.config : {};
  // A wait longer than the run's deadline is silently cut short by it: say so at publish time.
  const waitField =
    view.type === "approval" || view.type === "wait_for_event" || view.type === "task"
      ? "timeout"
      : view.type === "delay"
        ? "duration"
        : null;
  const wait = waitField ? tryParseDuration(config[waitField]) : null;
  if (waitField && wait?.ok && wait.ms > constraints.timeoutMs) {
    issues.push(
      makeIssue(
        "WAIT_EXCEEDS_DEADLINE",
        `${subject}: config.${waitField} (${formatDuration(wait.ms)}) is longer than the run's deadline (constraints.timeoutMs = ${formatDuration(constraints.timeoutMs)}); the run will time out first. Raise constraints.timeoutMs or shorten the ${waitField}.`,
        [...view.path, "config", waitField],
        { stepId: view.id },
      ),
    );
  }
  for (const [field, url] of outboundUrlFields(view.type, config)) {
    const host = privateHost(url);
    if (host) {
      issues.push(
        makeIssue(
          "PRIVATE_ADDRESS",
          `${subject}: ${fieldText(["config", ...field])} points at ${quote(host)}, a private, loopback, link-local or metadata address; it is refused at run time unless the workspace allows private addresses.`,
          [...view.path, "config", ...field],
          { stepId: view.id },
        ),
      );
    }
  }
  if (view.type === "propose_change" && isPlainObject(config.definition))
    checkProposedDefinition(checker, view, config.definition);
  if (view.type === "tool" && options.mcpServers) checkToolStep(checker, view, config);
}

function checkToolStep(checker: Checker, view: StepView, config: Record<string, unknown>): void {
  const catalog = checker.options.mcpServers!;
  const subject = `Step ${quote(view.id)} (tool)`;
  const at = (...field: Array<string | number>) => [...view.path, "config", ...field];
  const { server, tool } = config;
  if (typeof server !== "string" || typeof tool !== "string") return;
  const known = Object.prototype.hasOwnProperty.call(catalog, server) ? catalog[server] : undefined;
  if (!known) {
    const names = Object.keys(catalog);
    checker.issues.push(
      makeIssue(
        "UNKNOWN_MCP_SERVER",
        `${subject}: no MCP server named ${quote(server)} is configured in this workspace${names.length ? ` (configured: ${names.join(", ")})` : ""}; a workspace admin adds servers under Settings → Integrations.${didYouMean(server, names)}`,
        at("server"),
        { stepId: view.id },
      ),
    );
    return;
  }
  if (!known.tools) return;
  const found = known.tools.find((t) => t.name === tool);
  if (!found) {
    const names = known.tools.map((t) => t.name);
    checker.issues.push(
      makeIssue(
        "UNKNOWN_MCP_TOOL",
        `${subject}: MCP server ${quote(server)} has no tool named ${quote(tool)} (it offers: ${names.join(", ") || "none"}, as of its last tool list).${didYouMean(tool, names)}`,
        at("tool"),
        { stepId: view.id },
      ),
    );
    return;
  }
  const args = isPlainObject(config.arguments) ? config.arguments : {};
  for (const name of found.required) {
    if (!Object.prototype.hasOwnProperty.call(args, name))
      checker.issues.push(
        makeIssue(
          "MISSING_TOOL_ARGUMENT",
          `${subject}: tool ${quote(tool)} requires the argument ${quote(name)}; add it to config.arguments.`,
          at("arguments", name),
          { stepId: view.id },
        ),
      );
  }
}

/** The URLs a step calls out to, by config field (the private-address hint; the proposal risk rules). */
export function outboundUrlFields(
  type: unknown,
  config: Record<string, unknown>,
): Array<[IssuePath, string]> {
  const out: Array<[IssuePath, string]> = [];
  if (type === "http" && typeof config.url === "string") out.push([["url"], config.url]);
  if (type === "notify" && config.channel !== "email" && typeof config.target === "string")
    out.push([["target"], config.target]);
  if (type === "agent" && Array.isArray(config.tools)) {
    config.tools.forEach((tool, i) => {
      if (isPlainObject(tool) && tool.type === "mcp" && typeof tool.url === "string")
        out.push([["tools", i, "url"], tool.url]);
    });
  }
  return out;
}

/** The host of a literal URL when it is obviously private (the run-time guard also resolves DNS). */
export function privateHost(url: string): string | null {
  if (url.includes("{{")) return null;
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
  const bare = host.replace(/^\[|\]$/g, "");
  if (
    bare === "localhost" ||
    /\.(localhost|local|internal)$/.test(bare) ||
    bare === "metadata.google.internal"
  )
    return host;
  // IP literals: the same classifier as the run-time SSRF guard (lib/net/ip.ts), so the editor's
  // warning and the guard never disagree (IPv4-mapped, 6to4, CGNAT, metadata… included).
  const ip = parseIp(bare);
  if (ip) return classifyIp(ip) === "public" ? null : host;
  return null;
}

function checkProposedDefinition(
  checker: Checker,
  view: StepView,
  definition: Record<string, unknown>,
): void {
  if (checker.nesting > 0) return; // one level is enough to catch mistakes; deeper proposals are checked when applied
  const nested = checker.validateNested(definition, checker.options, checker.nesting + 1);
  for (const issue of nested.issues.filter((i) => i.severity === "error").slice(0, 20)) {
    checker.issues.push(
      makeIssue(
        "INVALID_PROPOSED_DEFINITION",
        `Step ${quote(view.id)} (propose_change): the proposed definition is invalid — ${issue.message}`,
        [...view.path, "config", "definition", ...issue.path],
        { stepId: view.id },
      ),
    );
  }
}
