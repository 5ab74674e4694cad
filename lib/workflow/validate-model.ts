/**
 * The state the semantic checks of validateDefinition share: each level of the graph (the top
 * level, then every loop body) as a view of its usable steps, and the checker collecting issues.
 */
import type { TypeScope } from "./comparison-types";
import type { Ancestry, WorkflowGraph } from "./graph";
import type { IssueCode, IssuePath, ValidationIssue } from "./issues";
import type { ValidateOptions, ValidationResult } from "./validate";

export interface StepView {
  readonly id: string;
  readonly type: string;
  readonly raw: Record<string, unknown>;
  readonly path: IssuePath;
  readonly when?: unknown;
}

export interface Level {
  readonly path: IssuePath;
  readonly rawSteps: readonly unknown[];
  readonly rawEdges: unknown;
  readonly views: StepView[];
  readonly ids: Set<string>;
  readonly parent?: { readonly level: Level; readonly loopId: string };
  graph?: WorkflowGraph<StepView>;
  ancestry?: Ancestry;
  /** Steps with a place in the topological order (not on or behind a cycle). */
  ordered?: ReadonlySet<string>;
  /** The decisions each step needs in order to run (computed on first use, see gatesIn). */
  gates?: ReadonlyMap<string, ReadonlySet<string>>;
}

export interface Checker {
  readonly root: Record<string, unknown>;
  readonly options: ValidateOptions;
  readonly nesting: number;
  /** validateDefinition one level down (a propose_change step's proposed definition). */
  readonly validateNested: (
    input: unknown,
    options: ValidateOptions,
    nesting: number,
  ) => ValidationResult;
  readonly issues: ValidationIssue[];
  /** Every step id in the definition → the loop whose body holds it (null at the top level). */
  readonly owners: Map<string, string | null>;
  readonly inputs: ReadonlySet<string>;
  readonly vars: ReadonlySet<string>;
  /** The top-level graph, once gathered (workflow `output` reads its steps). */
  topLevel?: Level;
  /** What references are known to hold (computed on first use, see checkComparisons). */
  typeScope?: TypeScope;
  readonly constraints: {
    allowSelfModification: boolean;
    maxSteps: number;
    forbidden: ReadonlySet<string>;
    /** The run deadline (constraints.timeoutMs, default 1 h). */
    timeoutMs: number;
  };
}

export type Report = (code: IssueCode, message: string) => void;

export function declared(names: ReadonlySet<string>): string {
  return names.size === 0
    ? " (it declares none)"
    : ` (declared: ${[...names].slice(0, 10).join(", ")}${names.size > 10 ? ", …" : ""})`;
}

export function article(word: string): string {
  return /^([aeiou]|http)/.test(word) ? "an" : "a";
}
