import type { Operation } from "../operation";
import * as alerts from "./alerts";
import * as audit from "./audit";
import * as meta from "./meta";
import * as proposals from "./proposals";
import * as proposalRules from "./proposal-rules";
import * as proposalImpact from "./proposal-impact";
import * as proposalReplay from "./proposal-replay";
import * as runCompare from "./run-compare";
import * as runs from "./runs";
import * as tasks from "./tasks";
import * as triggers from "./triggers";
import * as workflows from "./workflows";

/** Every /api/v1 operation, in document order. A test checks it against the route files. */
export const OPERATIONS: Operation[] = [
  meta,
  workflows,
  runs,
  runCompare,
  tasks,
  triggers,
  proposals,
  proposalRules,
  proposalImpact,
  proposalReplay,
  audit,
  alerts,
].flatMap((m) => Object.values(m) as Operation[]);
