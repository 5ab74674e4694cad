/**
 * The functions the executor serves. Apps sync in-band (the executor PUTs the serve URL with
 * `x-inngest-sync-kind: in_band` and stores the config the SDK returns) or out-of-band (the SDK
 * POSTs `/fn/register`). Configs are validated on the way in; an unsupported option marks the
 * function invalid with its reasons. An in-memory index (names, wildcards, crons) serves routing;
 * it is rebuilt after every sync here and refreshed periodically for syncs by other processes.
 */
import { and, eq, ne, notInArray } from "drizzle-orm";
import { executorApps, executorFunctions } from "../../db/schema/executor";
import type { ExecutorFunctionStatus } from "../../db/schema/executor";
import type { Db } from "../../db/client";
import type { ExecutorContext } from "./context";
import { parseFunctionConfig, type FunctionSpec } from "./function-config";
import { canonicalize } from "./jcs";
import { signatureHeader, verifySdkSignature } from "./signing";

export interface RegisteredFunction extends FunctionSpec {
  status: ExecutorFunctionStatus;
  errors: string[];
  config: Record<string, unknown>;
  /** First sync (ms): cron ticks before it never fire. */
  createdAt: number;
}

export interface Registry {
  get(id: string): RegisteredFunction | undefined;
  all(): RegisteredFunction[];
  /** Active functions with an event trigger matching `name` (exact, or `prefix*` wildcard). */
  forEvent(name: string): Array<{ fn: RegisteredFunction; expression?: string }>;
  /** Active functions that cancel runs on event `name`. */
  cancelling(name: string): RegisteredFunction[];
  /** Active functions with cron triggers. */
  crons(): Array<{ fn: RegisteredFunction; cron: string }>;
  refresh(db: Db): Promise<void>;
}

export function createRegistry(): Registry {
  let fns = new Map<string, RegisteredFunction>();
  let exact = new Map<string, Array<{ fn: RegisteredFunction; expression?: string }>>();
  let wildcards: Array<{ prefix: string; fn: RegisteredFunction; expression?: string }> = [];
  let cancels = new Map<string, RegisteredFunction[]>();
  let crons: Array<{ fn: RegisteredFunction; cron: string }> = [];

  function rebuild(list: RegisteredFunction[]) {
    fns = new Map(list.map((f) => [f.id, f]));
    exact = new Map();
    wildcards = [];
    cancels = new Map();
    crons = [];
    for (const fn of list) {
      if (fn.status !== "active") continue;
      for (const t of fn.triggers) {
        if ("cron" in t) crons.push({ fn, cron: t.cron });
        else if (t.event.endsWith("*"))
          wildcards.push({ prefix: t.event.slice(0, -1), fn, expression: t.expression });
        else {
          const arr = exact.get(t.event) ?? [];
          arr.push({ fn, expression: t.expression });
          exact.set(t.event, arr);
        }
      }
      for (const c of fn.cancel) {
        const arr = cancels.get(c.event) ?? [];
        if (!arr.includes(fn)) arr.push(fn);
        cancels.set(c.event, arr);
      }
    }
  }

  return {
    get: (id) => fns.get(id),
    all: () => [...fns.values()],
    forEvent(name) {
      const out = [...(exact.get(name) ?? [])];
      for (const w of wildcards)
        if (name.startsWith(w.prefix)) out.push({ fn: w.fn, expression: w.expression });
      return out;
    },
    cancelling: (name) => cancels.get(name) ?? [],
    crons: () => crons,
    async refresh(db) {
      const rowsList = await db.select().from(executorFunctions);
      rebuild(
        rowsList.map((r) => {
          const { spec, errors } = parseFunctionConfig(r.appId, r.config);
          return {
            ...spec,
            status: r.status,
            errors: r.status === "invalid" ? r.errors : errors,
            config: r.config,
            createdAt: r.createdAt.getTime(),
          };
        }),
      );
    },
  };
}

export interface SyncResult {
  appId: string;
  url: string;
  functions: Array<{ id: string; status: ExecutorFunctionStatus; errors: string[] }>;
}

/** Last stored config per serve URL, so a periodic re-sync that finds no change writes nothing. */
const lastSynced = new WeakMap<
  ExecutorContext,
  Map<string, { digest: string; result: SyncResult }>
>();

/**
 * In-band sync: asks the SDK at `url` for its config and stores it. With `onlyIfChanged` (periodic
 * re-syncs) a config identical to the one this process stored last is not written again.
 */
export async function syncApp(
  ex: ExecutorContext,
  url: string,
  opts: { onlyIfChanged?: boolean } = {},
): Promise<SyncResult> {
  const body = canonicalize({ url });
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "x-inngest-sync-kind": "in_band",
    "x-inngest-server-kind": ex.opts.signingKeys.length ? "cloud" : "dev",
  };
  if (ex.opts.signingKeys[0])
    headers["x-inngest-signature"] = signatureHeader(ex.opts.signingKeys[0], body);
  const res = await ex.opts.transport({
    method: "PUT",
    url,
    headers,
    body,
    timeoutMs: ex.opts.requestTimeoutMs,
  });
  if (res.status !== 200) {
    throw new Error(`sync of ${url} failed: HTTP ${res.status} ${res.body.slice(0, 300)}`);
  }
  if (res.headers.get("x-inngest-sync-kind") !== "in_band") {
    throw new Error(
      `sync of ${url} was not answered in-band (is INNGEST_ALLOW_IN_BAND_SYNC=false set on the app?): ${res.body.slice(0, 200)}`,
    );
  }
  if (ex.opts.signingKeys.length) {
    const check = verifySdkSignature(
      res.headers.get("x-inngest-signature"),
      res.body,
      ex.opts.signingKeys,
      Date.now(),
    );
    if (!check.ok)
      throw new Error(`sync of ${url}: the app's response signature is invalid (${check.reason})`);
  }
  const payload = JSON.parse(res.body) as {
    app_id?: string;
    functions?: Array<Record<string, unknown>>;
    sdk?: string;
    framework?: string;
    url?: string;
  };
  if (!payload.app_id || !Array.isArray(payload.functions)) {
    throw new Error(
      `sync of ${url}: the response is not an in-band registration (${res.body.slice(0, 200)})`,
    );
  }
  const digest = canonicalize({ appId: payload.app_id, functions: payload.functions });
  const seen = lastSynced.get(ex) ?? new Map<string, { digest: string; result: SyncResult }>();
  lastSynced.set(ex, seen);
  const previous = seen.get(url);
  if (opts.onlyIfChanged && previous?.digest === digest) return previous.result;
  const result = await storeApp(ex, {
    appId: payload.app_id,
    url,
    sdk: payload.sdk,
    framework: payload.framework,
    functions: payload.functions,
  });
  seen.set(url, { digest, result });
  return result;
}

/** Stores an app's functions (in-band or `/fn/register`); functions no longer present are marked removed. */
export async function storeApp(
  ex: ExecutorContext,
  app: {
    appId: string;
    url: string;
    sdk?: string;
    framework?: string;
    functions: Array<Record<string, unknown>>;
  },
): Promise<SyncResult> {
  const now = new Date();
  const parsed = app.functions.map((config) => ({
    config,
    ...parseFunctionConfig(app.appId, config),
  }));
  const ids = parsed.map((p) => p.spec.id);
  const duplicates = ids.filter((id, i) => ids.indexOf(id) !== i);
  if (duplicates.length)
    throw new Error(`app ${app.appId} registers duplicate function ids: ${duplicates.join(", ")}`);

  await ex.db.transaction(async (tx) => {
    await tx
      .insert(executorApps)
      .values({
        id: app.appId,
        url: app.url,
        sdk: app.sdk,
        framework: app.framework,
        syncedAt: now,
      })
      .onConflictDoUpdate({
        target: executorApps.id,
        set: { url: app.url, sdk: app.sdk, framework: app.framework, syncedAt: now },
      });
    for (const p of parsed) {
      const status: ExecutorFunctionStatus = p.errors.length ? "invalid" : "active";
      await tx
        .insert(executorFunctions)
        .values({
          id: p.spec.id,
          appId: app.appId,
          name: p.spec.name,
          config: p.config,
          status,
          errors: p.errors,
          createdAt: new Date(ex.clock.now()),
          updatedAt: now,
        })
        .onConflictDoUpdate({
          target: executorFunctions.id,
          set: {
            appId: app.appId,
            name: p.spec.name,
            config: p.config,
            status,
            errors: p.errors,
            updatedAt: now,
          },
        });
    }
    await tx
      .update(executorFunctions)
      .set({ status: "removed", updatedAt: now })
      .where(
        and(
          eq(executorFunctions.appId, app.appId),
          ne(executorFunctions.status, "removed"),
          ids.length ? notInArray(executorFunctions.id, ids) : undefined,
        ),
      );
  });
  await ex.registry.refresh(ex.db);

  const result: SyncResult = {
    appId: app.appId,
    url: app.url,
    functions: parsed.map((p) => ({
      id: p.spec.id,
      status: p.errors.length ? "invalid" : "active",
      errors: p.errors,
    })),
  };
  for (const f of result.functions) {
    if (f.status === "invalid") {
      ex.log.error(
        "function refused at sync: it uses options the embedded executor does not support",
        {
          functionId: f.id,
          errors: f.errors,
        },
      );
    }
  }
  ex.log.info("app synced", {
    appId: app.appId,
    url: app.url,
    active: result.functions.filter((f) => f.status === "active").length,
    invalid: result.functions.filter((f) => f.status === "invalid").length,
  });
  ex.wake();
  return result;
}
