/**
 * lib/workflow — the pure, isomorphic workflow-definition library: schema, catalog, validation,
 * hashing, diff, templates, conditions, graph semantics, statuses, durations and import/export.
 * No I/O and no Node-only APIs: the browser editor and the server share every rule here.
 */
export * from "./status";
export * from "./duration";
export {
  type JsonValue,
  type JsonObject,
  type JsonPrimitive,
  isJsonValue,
  deepEqual,
  canonicalStringify,
} from "./json";
export * from "./templates";
export * from "./template-resolve";
export * from "./template-scan";
export * from "./conditions";
export * from "./condition-eval";
export * from "./condition-regex";
export {
  STEP_TYPES,
  StepType,
  isStepType,
  Step,
  Edge,
  LoopBody,
  Retry,
  EdgeFailurePolicy,
  EDGE_FAILURE_POLICIES,
  backoffDelayMs,
  hostMatches,
  TransformConfig,
  ConditionConfig,
  HttpConfig,
  ScriptConfig,
  CodeConfig,
  LlmConfig,
  AgentConfig,
  AgentTool,
  ApprovalConfig,
  DelayConfig,
  WaitForEventConfig,
  EmitEventConfig,
  LoopConfig,
  SubworkflowConfig,
  NotifyConfig,
  ProposeChangeConfig,
  PatchOperation,
  ReturnConfig,
  type StepInput,
  type EdgeInput,
  type StepOfType,
  type StepConfig,
} from "./steps";
export {
  STEP_CATALOG,
  STEP_CATEGORIES,
  ERROR_PORT,
  SIDE_EFFECT_STEP_TYPES,
  WAITING_STEP_TYPES,
  stepTypeInfo,
  portsOf,
  defaultPortOf,
  fieldDescription,
  configFieldDocs,
  type StepTypeInfo,
  type StepCategory,
  type TemplateMode,
} from "./catalog";
export * from "./definition";
export * from "./repository";
export { normalizeDefinition, effectiveEdges } from "./normalize";
export {
  validateDefinition,
  parseDefinition,
  MAX_DEFINITION_NODES,
  type McpServerCatalog,
  type ValidateOptions,
  type ValidationResult,
} from "./validate";
export { privateHost } from "./validate-steps";
export {
  ISSUE_CODES,
  WARNING_CODES,
  DefinitionValidationError,
  makeIssue,
  type IssueCode,
  type ValidationIssue,
  type IssuePath,
} from "./issues";
export {
  stepReferences,
  definitionReferences,
  stepsReferencing,
  forEachStep,
  renameStep,
  RenameError,
  type StepReferences,
  type DefinitionReferences,
} from "./refs";
export {
  canConnect,
  connectSteps,
  tryRenameStep,
  copySteps,
  readClipboard,
  pasteSteps,
  duplicateSteps,
  insertStepAfter,
  deleteSteps,
  danglingReferences,
  starterConfig,
  freshStepId,
  stepIdsOf,
  outputPortsOf,
  levelsOf,
  levelOf,
  loopBodyOf,
  resolvedEdges,
  type Refusal,
  type EditResult,
  type Level,
  type ResolvedEdge,
  type ConnectionRequest,
  type InsertOptions,
  type DanglingReference,
  type StepClipboard,
  type PasteOptions,
} from "./edit-ops";
export * from "./hash";
export * from "./diff";
export {
  buildGraph,
  computeAncestry,
  unreachableSteps,
  rootSteps,
  waitsFor,
  GraphError,
  type WorkflowGraph,
  type GraphNode,
  type GraphEdge,
  type GraphSource,
  type Ancestry,
} from "./graph";
export { buildRunnableGraph } from "./graph-cycles";
export { findCycles, type Cycle } from "./graph-cycles";
export * from "./run-semantics";
export * from "./run-decisions";
export * from "./run-context";
export * from "./inputs";
export * from "./io";
export { workflowJsonSchema, WORKFLOW_SCHEMA_ID, type JsonSchema } from "./json-schema";
export { makeLargeDefinition } from "./fixtures";
export { parseResolvedConfig, resolveStepConfig } from "./resolve-config";
export {
  JsonPatchOperation,
  JsonPatch,
  applyDefinitionPatch,
  parsePointer,
  formatPointer,
  type PatchResult,
} from "./json-patch";
export { assessChange, maxLevel } from "./proposal-risk";
export {
  describeChange,
  outboundDomains,
  stepOutboundUrls,
  urlHost,
  RISK_LEVELS,
  RISK_RULES,
  POLICIES,
  APPROVAL_TIMEOUT_GROWTH_FACTOR,
  type RiskLevel,
  type RiskRule,
  type PolicyName,
  type RiskReason,
  type PolicyVerdict,
  type ChangeAssessment,
  type AssessInput,
  type Change,
} from "./proposal-risk-change";
export { approvalWeakenings, approvalGateReasons } from "./proposal-risk-approvals";
export {
  forbiddenStepTypeReasons,
  scriptStepReasons,
  outboundDomainReasons,
  secretReasons,
  constraintReasons,
  sideEffectReasons,
  edgeRewiringReasons,
} from "./proposal-risk-rules";
export {
  summarizeChange,
  stepLabel,
  edgeLabel,
  showValue,
  fieldList,
  fieldValues,
  CHANGE_KINDS,
  type ChangeKind,
  type ChangeLine,
} from "./change-summary";
