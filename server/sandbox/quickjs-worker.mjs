// QuickJS sandbox worker for `code` steps (spawned by server/sandbox/quickjs.ts, one per run).
// Plain JavaScript on purpose: a worker thread loads a file from disk, outside the Next bundle.
// The guest gets a fresh QuickJS runtime with no host access: no fetch, fs, process, require,
// timers or module loader; only `console`, which is captured. Limits: memory and stack through
// the runtime, time through the interrupt handler (the parent also terminates the worker).
import { parentPort, workerData } from "node:worker_threads";
import { newQuickJSWASMModule, newVariant, RELEASE_SYNC } from "quickjs-emscripten";

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
} = workerData;

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
  const describe = (v) => {
    if (typeof v === "bigint") return "a BigInt";
    if (typeof v === "symbol") return "a symbol";
    if (typeof v === "function") return "a function";
    const name = v && v.constructor && v.constructor.name;
    return name ? "a " + name : "an object with a custom prototype";
  };
  const check = (v, path, depth, ancestors) => {
    if (v === null || typeof v === "string" || typeof v === "boolean" || v === undefined) return;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) throw new TypeError(path + " is " + v + ", which JSON cannot represent");
      return;
    }
    if (typeof v !== "object") throw new TypeError(path + " is " + describe(v) + "; return JSON values only (objects, arrays, strings, numbers, booleans, null)");
    if (depth > 200) throw new TypeError(path + " is nested more than 200 levels deep");
    if (typeof v.toJSON === "function") return;
    const proto = Object.getPrototypeOf(v);
    if (!Array.isArray(v) && proto !== Object.prototype && proto !== null) {
      throw new TypeError(path + " is " + describe(v) + "; return plain objects and arrays");
    }
    if (ancestors.includes(v)) throw new TypeError(path + " contains a circular reference");
    ancestors.push(v);
    if (Array.isArray(v)) v.forEach((item, i) => check(item, path + "[" + i + "]", depth + 1, ancestors));
    else for (const k of Object.keys(v)) check(v[k], path + (/^[A-Za-z_$][\\w$]*$/.test(k) ? "." + k : "[" + JSON.stringify(k) + "]"), depth + 1, ancestors);
    ancestors.pop();
  };
  return (value, maxChars) => {
    check(value, "The result", 0, []);
    const json = JSON.stringify(value === undefined ? null : value);
    // Checked here so an oversized result never crosses into the host as one giant string.
    if (json.length > maxChars) throw new RangeError("TOO_LARGE");
    return json;
  };
})()`;

const logs = [];
let logBytes = 0;
let logsTruncated = false;

function errorInfo(vm, handle, fallbackKind) {
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

function postTooLarge() {
  return post({
    ok: false,
    error: {
      kind: "result_too_large",
      name: "RangeError",
      message: `The result is larger than ${Math.round(maxResultBytes / 1024)} KiB of JSON`,
    },
  });
}

function post(payload) {
  parentPort.postMessage({ ...payload, logs, logsTruncated });
}

async function main() {
  // QuickJS's own limit does not count every allocation (typed array data escapes it), so the
  // WASM memory itself is capped too: the limit plus room for the interpreter and its stack.
  const PAGE = 65536;
  const wasmMemory = new WebAssembly.Memory({
    initial: 256,
    maximum: Math.max(256, Math.ceil((memoryBytes + stackBytes) / PAGE) + 256),
  });
  const QuickJS = await newQuickJSWASMModule(newVariant(RELEASE_SYNC, { wasmMemory }));
  const rt = QuickJS.newRuntime();
  rt.setMemoryLimit(memoryBytes);
  rt.setMaxStackSize(stackBytes);
  const deadline = Date.now() + timeoutMs;
  rt.setInterruptHandler(() => Date.now() > deadline);
  const vm = rt.newContext();

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
  if (prelude.error) return post({ ok: false, error: errorInfo(vm, prelude.error, "internal") });
  const toJson = prelude.value;

  const settle = (handle, phase) => {
    // No host async exists, so running every pending job settles the promise or proves it never will.
    const state = vm.getPromiseState(handle);
    if (state.notAPromise) return { value: handle };
    if (state.type === "pending") {
      const jobs = rt.executePendingJobs(-1);
      if (jobs.error) return { error: errorInfo(vm, jobs.error, phase) };
    }
    const after = vm.getPromiseState(handle);
    if (after.type === "fulfilled") return { value: after.value };
    if (after.type === "rejected") return { error: errorInfo(vm, after.error, phase) };
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
  if (loaded.error) return post({ ok: false, error: errorInfo(vm, loaded.error, "load") });
  const ns = settle(loaded.value, "load");
  if (ns.error) return post({ ok: false, error: ns.error });
  const fn = vm.getProp(ns.value, "default");
  if (vm.typeof(fn) !== "function") {
    return post({
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
    return post({
      ok: false,
      error: {
        kind: "internal",
        name: "Error",
        message: "Could not pass the input into the sandbox",
      },
    });
  }
  const called = vm.callFunction(fn, vm.undefined, inputHandle, ctxHandle);
  if (called.error) return post({ ok: false, error: errorInfo(vm, called.error, "runtime") });
  const result = settle(called.value, "runtime");
  if (result.error) return post({ ok: false, error: result.error });
  const maxChars = vm.newNumber(maxResultBytes);
  const converted = vm.callFunction(toJson, vm.undefined, result.value, maxChars);
  if (converted.error) {
    const info = errorInfo(vm, converted.error, "result");
    if (info.name === "RangeError" && info.message === "TOO_LARGE") return postTooLarge();
    // A timeout or memory error while converting keeps its own kind.
    return post({
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
  if (Buffer.byteLength(json) > maxResultBytes) return postTooLarge();
  return post({ ok: true, resultJson: json });
  // The runtime is not disposed: the worker exits next and takes the whole WASM heap with it.
}

main().catch((e) => {
  post({
    ok: false,
    error: { kind: "internal", name: e?.name ?? "Error", message: String(e?.message ?? e) },
  });
});
