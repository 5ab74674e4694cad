import type { Operation } from "../operation";
import * as audit from "./audit";
import * as meta from "./meta";
import * as proposals from "./proposals";
import * as runs from "./runs";
import * as tasks from "./tasks";
import * as triggers from "./triggers";
import * as workflows from "./workflows";

/** Every /api/v1 operation, in document order. A test checks it against the route files. */
export const OPERATIONS: Operation[] = [
  meta,
  workflows,
  runs,
  tasks,
  triggers,
  proposals,
  audit,
].flatMap((m) => Object.values(m) as Operation[]);
