/** Helpers the config schemas share to report cross-field and per-field problems. */
import { z } from "zod";
import { isPlainObject } from "../json";

export type Ctx = z.RefinementCtx;
export type Loose = Record<string, unknown>;
export const configIssue = (ctx: Ctx, path: Array<string | number>, message: string) =>
  ctx.addIssue({ code: "custom", path, message });

/**
 * Cross-field rules run even when a sibling field failed (zod skips refinements after an error
 * by default), so one parse reports everything. They read fields defensively for that reason.
 */
export function crossRule(rule: (config: Loose, ctx: Ctx) => void) {
  return [
    (value: unknown, ctx: Ctx) => rule(value as Loose, ctx),
    { when: (payload: { value: unknown }) => isPlainObject(payload.value) },
  ] as const;
}

export function fieldRule(problem: (value: string) => string | null) {
  return (value: string, ctx: Ctx) => {
    const message = problem(value);
    if (message) ctx.addIssue({ code: "custom", message });
  };
}

export function exactlyOne(config: Loose, ctx: Ctx, a: string, b: string, what: string): void {
  const hasA = config[a] !== undefined;
  if (hasA === (config[b] !== undefined))
    configIssue(
      ctx,
      hasA ? [b] : [],
      `${what} needs exactly one of "${a}" or "${b}"${hasA ? ", not both" : ""}.`,
    );
}
