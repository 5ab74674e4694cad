/**
 * Canonical form and content hash of a definition (SPEC §3): `sha256:<hex>` over canonical JSON —
 * parsed with every default explicit (including edge ports, and the array-order chain as explicit
 * edges), `layout` removed, object keys deep-sorted, no whitespace. Equal definitions hash equal
 * regardless of key order, omitted defaults, or writing the chain out by hand. Synchronous and
 * isomorphic (@noble/hashes), so the editor can show "unchanged since v1.4.0" without a server call.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import type { WorkflowDefinition } from "./definition";
import { canonicalStringify } from "./json";
import { effectiveEdges, normalizeDefinition } from "./normalize";
import type { Step } from "./steps";

export type DefinitionHash = `sha256:${string}`;

export const HASH_PATTERN = /^sha256:[0-9a-f]{64}$/;

/** The normalized definition as hashed: layout dropped, edges explicit at every level. */
export function canonicalDefinition(input: unknown): Omit<WorkflowDefinition, "layout"> {
  return canonicalOfNormalized(normalizeDefinition(input));
}

function canonicalOfNormalized(definition: WorkflowDefinition): Omit<WorkflowDefinition, "layout"> {
  const { layout: _layout, ...rest } = definition;
  return {
    ...rest,
    steps: rest.steps.map(canonicalStep),
    edges: effectiveEdges(rest.steps, rest.edges),
  };
}

function canonicalStep(step: Step): Step {
  if (step.type !== "loop" || !step.config.body) return step;
  const body = step.config.body;
  const steps = body.steps.map(canonicalStep);
  return {
    ...step,
    config: { ...step.config, body: { steps, edges: effectiveEdges(steps, body.edges) } },
  };
}

/** Canonical JSON text of a definition; throws DefinitionValidationError if it does not parse. */
export function canonicalJson(input: unknown): string {
  return canonicalStringify(canonicalDefinition(input));
}

/** `sha256:<64 hex>` of the canonical JSON. */
export function hashDefinition(input: unknown): DefinitionHash {
  return hashText(canonicalJson(input));
}

/**
 * Fast path for a definition that is already normalized — the `definition` returned by
 * validateDefinition or normalizeDefinition, unmodified. Skips the second parse; passing anything
 * else may hash differently from hashDefinition.
 */
export function hashNormalizedDefinition(definition: WorkflowDefinition): DefinitionHash {
  return hashText(canonicalStringify(canonicalOfNormalized(definition)));
}

/** sha256 of a UTF-8 string in the `sha256:<hex>` form. */
export function hashText(text: string): DefinitionHash {
  return `sha256:${bytesToHex(sha256(utf8ToBytes(text)))}`;
}

export function isDefinitionHash(value: unknown): value is DefinitionHash {
  return typeof value === "string" && HASH_PATTERN.test(value);
}
