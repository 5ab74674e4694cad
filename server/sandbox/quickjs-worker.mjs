// QuickJS sandbox worker for `code` steps (kept warm in a pool by server/sandbox/quickjs.ts).
// Plain JavaScript on purpose: a worker thread loads a file from disk, outside the Next bundle.
// The worker compiles the WASM module once; each job then gets its own WASM instance with its
// own capped memory, runtime and context, dropped when the job ends, so nothing a guest does
// (globals, prototypes, a heap it filled) reaches the next job. The guest has no host access: no
// fetch, fs, process, require, timers or module loader; only `console`, which is captured.
// Limits: memory and stack through the runtime and the capped WASM memory, time through the
// interrupt handler (the parent also terminates the worker if that ever fails).
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { parentPort } from "node:worker_threads";
import { newQuickJSWASMModule, newVariant, RELEASE_SYNC } from "quickjs-emscripten";

const wasmModule = await WebAssembly.compile(fs.readFileSync(wasmFile()));

/**
 * The QuickJS WASM file. Resolved through quickjs-emscripten's own dependencies (a non-hoisted
 * install works too) when this file runs as itself; Next's bundler (which bundles worker_threads
 * entry files) turns `require.resolve` into a module id, so the bundled copy falls back to the
 * installed package under the app's folder.
 */
function wasmFile() {
  const installed = path.join(
    process.cwd(),
    "node_modules/@jitl/quickjs-wasmfile-release-sync/dist/emscripten-module.wasm",
  );
  try {
    const entry = createRequire(import.meta.url).resolve("quickjs-emscripten");
    if (typeof entry !== "string") return installed;
    const resolved = createRequire(entry).resolve("@jitl/quickjs-wasmfile-release-sync/wasm");
    return typeof resolved === "string" ? resolved : installed;
  } catch {
    return installed;
  }
}

// Runs inside QuickJS before the guest module. Returns the result converter, which refuses
// values JSON cannot represent instead of silently turning them into something else.
const PRELUDE = `(() => {
  const send = globalThis.__sluiceLog;
  delete globalThis.__sluiceLog;
  const fmt = (v) => {
    if (typeof v === "string") return v;
    if (v instanceof Error) return v.stack ? v.name + ": " + v.message + "\\n" + v.stack : String(v);
    try { const s = JSON.stringify(v); return s === undefined ? String(v) : s; } catch (e) { return String(v); }
  };
  const logger = (level) => (...args) => { send(level, args.map(fmt).join(" ")); };
  globalThis.console = Object.freeze({
    log: logger("log"), info: logger("info"), warn: logger("warn"), error: logger("error"), debug: logger("debug"),
  });
  // The guest may replace any global or prototype method before returning; the converter
  // uses only what it captured here, before the guest's module ran.
  const stringify = JSON.stringify, keys = Object.keys, protoOf = Object.getPrototypeOf;
  const isArray = Array.isArray, isFinite = Number.isFinite, apply = Reflect.apply;
  const ObjectProto = Object.prototype, reTest = RegExp.prototype.test;
  const TypeErr = TypeError, RangeErr = RangeError, identifier = /^[A-Za-z_$][\\w$]*$/;
  const describe = (v) => {
    if (typeof v === "bigint") return "a BigInt";
    if (typeof v === "symbol") return "a symbol";
    if (typeof v === "function") return "a function";
    const name = v && v.constructor && v.constructor.name;
    return typeof name === "string" && name ? "a " + name : "an object with a custom prototype";
  };
  const check = (v, path, depth, ancestors) => {
    if (v === null || typeof v === "string" || typeof v === "boolean" || v === undefined) return;
    if (typeof v === "number") {
      if (!isFinite(v)) throw new TypeErr(path + " is " + v + ", which JSON cannot represent");
      return;
    }
    if (typeof v !== "object") throw new TypeErr(path + " is " + describe(v) + "; return JSON values only (objects, arrays, strings, numbers, booleans, null)");
    if (depth > 200) throw new TypeErr(path + " is nested more than 200 levels deep");
    if (typeof v.toJSON === "function") return;
    const proto = protoOf(v);
    const arr = isArray(v);
    if (!arr && proto !== ObjectProto && proto !== null) {
      throw new TypeErr(path + " is " + describe(v) + "; return plain objects and arrays");
    }
    for (let i = 0; i < ancestors.length; i++) {
      if (ancestors[i] === v) throw new TypeErr(path + " contains a circular reference");
    }
    ancestors[ancestors.length] = v;
    if (arr) {
      for (let i = 0; i < v.length; i++) check(v[i], path + "[" + i + "]", depth + 1, ancestors);
    } else {
      const ks = keys(v);
      for (let i = 0; i < ks.length; i++) {
        const k = ks[i];
        check(v[k], path + (apply(reTest, identifier, [k]) ? "." + k : "[" + stringify(k) + "]"), depth + 1, ancestors);
      }
    }
    ancestors.length = ancestors.length - 1;
  };
  return (value, maxChars) => {
    check(value, "The result", 0, []);
    const json = stringify(value === undefined ? null : value);
    // Checked here so an oversized result never crosses into the host as one giant string.
    if (typeof json === "string" && json.length > maxChars) throw new RangeErr("TOO_LARGE");
    return json;
  };
})()`;

function errorInfo(vm, handle, fallbackKind, filename) {
  let dumped;
  try {
    dumped = vm.dump(handle);
  } catch {
    dumped = { name: "Error", message: "unknown error" };
  }
  const name = typeof dumped?.name === "string" ? dumped.name : "Error";
  const message = typeof dumped?.message === "string" ? dumped.message : String(dumped);
  const stack = typeof dumped?.stack === "string" ? dumped.stack.slice(0, 4000) : "";
  const where = new RegExp(`${filename.replace(/\./g, "\\.")}:(\\d+)(?::(\\d+))?`).exec(stack);
  let line = where
    ? Number(where[1])
    : typeof dumped?.lineNumber === "number"
      ? dumped.lineNumber
      : undefined;
  let column = where && where[2] ? Number(where[2]) : undefined;
  let kind = fallbackKind;
  if (name === "InternalError" && message === "interrupted") kind = "timeout";
  else if (name === "InternalError" && message === "out of memory") kind = "memory";
  else if (name === "InternalError" && message === "stack overflow") kind = "stack";
  else if (name === "SyntaxError" && fallbackKind === "load") kind = "syntax";
  return { kind, name, message, stack, line, column };
}

// QuickJS's own limit does not count every allocation (typed array data escapes it), so the
// WASM memory itself is capped too: the limit plus room for the interpreter and its stack.
const PAGE = 65536;
const maxPages = (bytes) => Math.max(256, Math.ceil(bytes / PAGE) + 256);

function newInstance(pages) {
  const wasmMemory = new WebAssembly.Memory({ initial: 256, maximum: pages });
  return newQuickJSWASMModule(newVariant(RELEASE_SYNC, { wasmMemory, wasmModule }));
}

// The next job's instance is made while the worker waits, off the job's critical path. It is
// never used twice: a job takes it, and a new one is made after the job replied.
let spare;
function prepareSpare(bytes) {
  const pages = maxPages(bytes);
  const instance = newInstance(pages);
  instance.catch(() => {});
  spare = { pages, instance };
}

function takeInstance(bytes) {
  const pages = maxPages(bytes);
  const taken = spare;
  spare = undefined;
  return taken && taken.pages === pages ? taken.instance : newInstance(pages);
}

async function runJob(job) {
  const {
    source,
    inputJson,
    contextJson,
    timeoutMs,
    memoryBytes,
    stackBytes,
    maxLogBytes,
    maxResultBytes,
    filename,
  } = job;
  const logs = [];
  let logBytes = 0;
  let logsTruncated = false;
  const done = (payload) => ({ ...payload, logs, logsTruncated });
  const tooLarge = () =>
    done({
      ok: false,
      error: {
        kind: "result_too_large",
        name: "RangeError",
        message: `The result is larger than ${Math.round(maxResultBytes / 1024)} KiB of JSON`,
      },
    });

  const QuickJS = await takeInstance(memoryBytes + stackBytes);
  const deadline = Date.now() + timeoutMs;
  const rt = QuickJS.newRuntime();
  rt.setMemoryLimit(memoryBytes);
  rt.setMaxStackSize(stackBytes);
  rt.setInterruptHandler(() => Date.now() > deadline);
  const vm = rt.newContext();
  const errorOf = (handle, kind) => errorInfo(vm, handle, kind, filename);

  const logFn = vm.newFunction("__sluiceLog", (levelHandle, textHandle) => {
    if (logsTruncated) return;
    const level = vm.getString(levelHandle);
    let message = vm.getString(textHandle);
    const size = Buffer.byteLength(message);
    if (logBytes + size > maxLogBytes) {
      message = message.slice(0, Math.max(0, maxLogBytes - logBytes));
      logsTruncated = true;
    }
    logBytes += Buffer.byteLength(message);
    logs.push({ level, message });
  });
  vm.setProp(vm.global, "__sluiceLog", logFn);
  logFn.dispose();

  const prelude = vm.evalCode(PRELUDE, "sluice-prelude.js", { type: "global" });
  if (prelude.error) return done({ ok: false, error: errorOf(prelude.error, "internal") });
  const toJson = prelude.value;

  const settle = (handle, phase) => {
    // No host async exists, so running every pending job settles the promise or proves it never will.
    const state = vm.getPromiseState(handle);
    if (state.notAPromise) return { value: handle };
    if (state.type === "pending") {
      const jobs = rt.executePendingJobs(-1);
      if (jobs.error) return { error: errorOf(jobs.error, phase) };
    }
    const after = vm.getPromiseState(handle);
    if (after.type === "fulfilled") return { value: after.value };
    if (after.type === "rejected") return { error: errorOf(after.error, phase) };
    return {
      error: {
        kind: "never_settled",
        name: "Error",
        message:
          "The function returned a promise that never settles (the sandbox has no timers, network or other async sources)",
      },
    };
  };

  const loaded = vm.evalCode(source, filename, { type: "module" });
  if (loaded.error) return done({ ok: false, error: errorOf(loaded.error, "load") });
  const ns = settle(loaded.value, "load");
  if (ns.error) return done({ ok: false, error: ns.error });
  const fn = vm.getProp(ns.value, "default");
  if (vm.typeof(fn) !== "function") {
    return done({
      ok: false,
      error: {
        kind: "no_default",
        name: "TypeError",
        message:
          "The module must `export default` a function: export default function (input, ctx) { … }",
      },
    });
  }
  const parse = (json) => {
    const r = vm.evalCode(`JSON.parse(${JSON.stringify(json)})`, "sluice-input.js", {
      type: "global",
    });
    return r.error ? null : r.value;
  };
  const inputHandle = parse(inputJson);
  const ctxHandle = parse(contextJson);
  if (!inputHandle || !ctxHandle) {
    return done({
      ok: false,
      error: {
        kind: "internal",
        name: "Error",
        message: "Could not pass the input into the sandbox",
      },
    });
  }
  const called = vm.callFunction(fn, vm.undefined, inputHandle, ctxHandle);
  if (called.error) return done({ ok: false, error: errorOf(called.error, "runtime") });
  const result = settle(called.value, "runtime");
  if (result.error) return done({ ok: false, error: result.error });
  const maxChars = vm.newNumber(maxResultBytes);
  const converted = vm.callFunction(toJson, vm.undefined, result.value, maxChars);
  if (converted.error) {
    const info = errorOf(converted.error, "result");
    if (info.name === "RangeError" && info.message === "TOO_LARGE") return tooLarge();
    // A timeout or memory error while converting keeps its own kind.
    return done({
      ok: false,
      error: {
        ...info,
        kind: info.kind === "result" ? "result" : info.kind,
        line: undefined,
        column: undefined,
      },
    });
  }
  const json = vm.getString(converted.value);
  if (Buffer.byteLength(json) > maxResultBytes) return tooLarge();
  return done({ ok: true, resultJson: json });
  // Handles are not disposed one by one: the whole instance (its memory included) is dropped
  // with this job, which frees everything at once.
}

parentPort.on("message", async ({ id, job }) => {
  let reply;
  try {
    reply = await runJob(job);
  } catch (e) {
    reply = {
      ok: false,
      error: { kind: "internal", name: e?.name ?? "Error", message: String(e?.message ?? e) },
      logs: [],
      logsTruncated: false,
    };
  }
  parentPort.postMessage({ id, ...reply });
  prepareSpare(job.memoryBytes + job.stackBytes);
});
// Most code steps use the default limits (64 MiB memory, 1 MiB stack).
prepareSpare(64 * 1024 * 1024 + 1024 * 1024);
parentPort.postMessage({ ready: true });
