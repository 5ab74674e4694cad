/**
 * Summarises a V8 .cpuprofile (`node --cpu-prof`): self time per function and per category
 * (SDK, executor, engine, Postgres driver, Drizzle, Node internals, GC…). Functions inside an
 * esbuild bundle are attributed to their source module through the bundle's `// path/to/module`
 * section comments, so the categories work on the bundled benchmarks too.
 *   npx tsx bench/profile-summary.ts <file.cpuprofile> [--top 30] [--skip-ms 0]
 * --skip-ms leaves out the first N ms of samples (process start-up, migrations).
 */
import fs from "node:fs";
import { fileURLToPath } from "node:url";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a script's code comes from, line by line: esbuild marks each bundled module's start. */
const moduleMaps = new Map<string, { line: number; path: string }[] | null>();
function moduleAt(url: string, line: number): string {
  if (!url.startsWith("file://")) return url;
  let map = moduleMaps.get(url);
  if (map === undefined) {
    map = null;
    const file = fileURLToPath(url);
    if (/\.build\/.*\.cjs$/.test(file) && fs.existsSync(file)) {
      map = [];
      fs.readFileSync(file, "utf8")
        .split("\n")
        .forEach((text, i) => {
          const m = /^\/\/ ((?:node_modules\/)?[\w@.-]+\/.*\.(?:ts|tsx|js|mjs|cjs|json))$/.exec(
            text,
          );
          if (m) map!.push({ line: i, path: m[1]! });
        });
    }
    moduleMaps.set(url, map);
  }
  if (!map) return url.replace(/^file:\/\/.*?\/node_modules\//, "node_modules/");
  let lo = 0;
  let hi = map.length - 1;
  let found = "(bundle preamble)";
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (map[mid]!.line <= line) {
      found = map[mid]!.path;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

const CATEGORIES: [RegExp, string][] = [
  [/^\((idle)\)$/, "idle (waiting on I/O)"],
  [/^\((garbage collector)\)$/, "garbage collector"],
  [/^\((program)\)$/, "V8 (program: compile, IC, runtime)"],
  [/node_modules\/inngest\//, "Inngest SDK (request handling, memo replay)"],
  [/^inngest\/executor\//, "embedded executor"],
  [
    /^inngest\/(engine|functions|actions)\//,
    "engine bodies (inngest/run-driver, functions, actions)",
  ],
  [/node_modules\/postgres\//, "Postgres driver (postgres.js)"],
  [/node_modules\/(pg|pg-[\w-]+)\//, "Postgres driver (pg)"],
  [/node_modules\/drizzle-orm\//, "Drizzle (query building, row mapping)"],
  [/node_modules\/zod\//, "zod (parsing)"],
  [/node_modules\/(superjson|serialize-error)\//, "serialization libs"],
  [/node_modules\/@dbos-inc\//, "DBOS SDK"],
  [/node_modules\/@noble\/hashes\//, "hashing (@noble/hashes)"],
  [/node_modules\//, "other node_modules"],
  [/^(server|lib|db)\//, "Sluice services, lib, db"],
  [/^bench\//, "bench harness"],
  [/^node:internal\/(streams|net|stream_base|dns)|^node:(net|stream|dns)/, "Node net / streams"],
  [/^node:internal\/(http|url)|^node:(http|url)/, "Node http / url"],
  [/^node:internal\/(timers|process\/task_queues|async_hooks)/, "Node timers / microtasks"],
  [/^node:/, "Node internals (other)"],
  [/^$/, "native / V8 builtins (JSON, RegExp, …)"],
];

/** Native frames with no script: socket writes are named after their stream_base binding. */
const NATIVE_NET = /^(writeBuffer|writev|writeUtf8String|writeLatin1String|readStart|readStop)$/;

function category(fn: string, module: string): string {
  if (module === "" && NATIVE_NET.test(fn)) return "Node net / streams";
  if (fn.startsWith("(")) {
    for (const [re, name] of CATEGORIES.slice(0, 3)) if (re.test(fn)) return name;
  }
  for (const [re, name] of CATEGORIES.slice(3)) if (re.test(module)) return name;
  return "other";
}

function main() {
  const args = process.argv.slice(2);
  const file = args.find((a) => !a.startsWith("--") && !/^\d+$/.test(a));
  const opt = (name: string, dflt: number) => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : dflt;
  };
  if (!file) {
    console.error("usage: profile-summary <file.cpuprofile> [--top 30] [--skip-ms 0]");
    process.exit(2);
  }
  const top = opt("--top", 30);
  const skipUs = opt("--skip-ms", 0) * 1000;
  const profile = JSON.parse(fs.readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));

  const selfUs = new Map<number, number>();
  let elapsed = 0;
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    elapsed += dt;
    if (elapsed < skipUs) return;
    selfUs.set(id, (selfUs.get(id) ?? 0) + dt);
    total += dt;
  });

  const fns = new Map<string, { us: number; source: string; cat: string }>();
  const cats = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const { callFrame: f } = byId.get(id)!;
    const source = moduleAt(f.url, f.lineNumber);
    const cat = category(f.functionName, source);
    const key = `${f.functionName || "(anonymous)"}  ${source}${f.url ? `:${f.lineNumber + 1}` : ""}`;
    const entry = fns.get(key) ?? { us: 0, source, cat };
    entry.us += us;
    fns.set(key, entry);
    cats.set(cat, (cats.get(cat) ?? 0) + us);
  }
  const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)} %`;
  const ms = (us: number) => `${(us / 1000).toFixed(0).padStart(7)} ms`;
  const busy = total - (cats.get("idle (waiting on I/O)") ?? 0);
  console.log(`profile: ${file}`);
  console.log(`sampled ${ms(total)} (after skipping ${skipUs / 1000} ms), busy ${ms(busy)}\n`);
  console.log("self time by category (share of busy time):");
  for (const [cat, us] of [...cats].sort((a, b) => b[1] - a[1])) {
    const share = cat.startsWith("idle") ? "" : `  ${((100 * us) / busy).toFixed(1)} % of busy`;
    console.log(`${ms(us)} ${pct(us)}  ${cat}${share}`);
  }
  console.log(`\ntop ${top} functions by self time:`);
  for (const [key, v] of [...fns].sort((a, b) => b[1].us - a[1].us).slice(0, top)) {
    console.log(`${ms(v.us)} ${pct(v.us)}  ${key}  [${v.cat}]`);
  }
}

main();
