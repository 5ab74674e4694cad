import "server-only";

/**
 * Which idempotency key each side-effecting step of a rerun would send, next to the one the
 * original run sent, so a person or an agent sees before confirming whether a receiver can
 * recognise the repeat. Mirrors step execution (attempt-context.ts, actions/http.ts, notify.ts):
 * the engine's key is `<root run id>:<step path>:<attempt>`; an http step's own Idempotency-Key
 * header wins; notify sends it as a webhook header or an email Message-ID.
 */

/** Stands for the id the rerun will get: it does not exist before the rerun is created. */
export const NEW_RUN_ID = "<new run id>";

export interface RerunIdempotency {
  /** The key the rerun's first attempt sends (with NEW_RUN_ID), or null when none is sent. */
  key: string | null;
  source: "engine" | "step_config" | "none";
  /** How the key reaches the receiver. */
  sentAs: "Idempotency-Key header" | "email Message-ID" | null;
  /** The key the original run's last attempt of this step sent, when it ran and sent one. */
  originalKey: string | null;
  /** The receiver sees the original's key again, so it can deduplicate the repeat. */
  repeatsOriginal: boolean;
  /** One sentence for the dialog. */
  note: string;
}

export interface OriginalAttempt {
  attempt: number;
  status: string;
  input: unknown;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** The value of an `Idempotency-Key` header in an http config (any case), if set. */
function configHeader(config: unknown): string | null {
  if (!isRecord(config) || !isRecord(config.headers)) return null;
  for (const [k, v] of Object.entries(config.headers))
    if (k.toLowerCase() === "idempotency-key" && typeof v === "string") return v;
  return null;
}

function sentAs(type: string, config: unknown): RerunIdempotency["sentAs"] {
  if (type === "http") return "Idempotency-Key header";
  if (type !== "notify" || !isRecord(config)) return null;
  if (config.channel === "webhook") return "Idempotency-Key header";
  if (config.channel === "email") return "email Message-ID";
  return null;
}

/** The rerun's key for one step (`path` at the top level) and how it compares with the original's. */
export function rerunIdempotency(args: {
  step: { id: string; type: string; config: unknown };
  originalRootRunId: string;
  original: OriginalAttempt | undefined;
}): RerunIdempotency {
  const { step, originalRootRunId, original } = args;
  const via = sentAs(step.type, step.config);
  if (!via)
    return {
      key: null,
      source: "none",
      sentAs: null,
      originalKey: null,
      repeatsOriginal: false,
      note: `A ${step.type} step sends no idempotency key: nothing downstream can tell the repeat from a new request`,
    };
  const ranBefore = original !== undefined && original.status !== "skipped";
  const own = step.type === "http" ? configHeader(step.config) : null;
  if (own !== null) {
    const originalKey = ranBefore ? (configHeader(original.input) ?? own) : null;
    const templated = own.includes("{{");
    const repeats = originalKey !== null && !templated && originalKey === own;
    return {
      key: own,
      source: "step_config",
      sentAs: via,
      originalKey,
      repeatsOriginal: repeats,
      note: templated
        ? "The step sets its own Idempotency-Key from a template: the receiver deduplicates only if it resolves to the original's value"
        : repeats
          ? "The step sets a fixed Idempotency-Key, the same as the original's: the receiver can deduplicate the repeat"
          : "The step sets a fixed Idempotency-Key",
    };
  }
  return {
    key: `${NEW_RUN_ID}:${step.id}:1`,
    source: "engine",
    sentAs: via,
    originalKey: ranBefore ? `${originalRootRunId}:${step.id}:${original.attempt}` : null,
    repeatsOriginal: false,
    note: "A new key (the rerun is a new run): the receiver sees a new request and will not deduplicate it against the original",
  };
}
