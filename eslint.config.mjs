import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

// Dependency direction (CONVENTIONS.md): app → components, lib, server · components → lib ·
// server/trpc → server/services, lib · server/services → db, lib, inngest/{client,events} ·
// inngest/functions → inngest/run-driver, server/services, lib ·
// inngest/run-driver → lib (server/ as types only) · lib → nothing internal.
// The engine: a run goes down inngest/functions (builds the StepEffects object once:
// inngest/functions/step-effects.ts) → inngest/run-driver (graph walk, waves, gates; Inngest step
// tools; calls step execution only through env.stepEffects) → server/services/step-execution
// (step bodies, runActionAttempt, handlers) → server/services/run-state and the other services
// → db. Nothing calls back up.
// Tests and test harnesses may reach across layers to set up fixtures.
const TEST_FILES = ["**/*.test.ts", "**/*.test.tsx", "**/testing/**", "**/testing.ts"];
const restrict = (files, patterns, { ignores = [], allowTypeImports = false } = {}) => ({
  files,
  ignores: [...TEST_FILES, ...ignores],
  rules: {
    "no-restricted-imports": [
      "error",
      { patterns: patterns.map(([group, message]) => ({ group, message, allowTypeImports })) },
    ],
  },
});

const internal = (dirs) => dirs.flatMap((d) => [`@/${d}`, `@/${d}/*`, `**/${d}/*`]);

// The run driver is orchestration: it imports nothing of app/, components/, db/ or server/ but
// types (row and plan shapes, step execution's signatures). Every call into step execution goes
// through the StepEffects object its caller hands down (inngest/run-driver/types.ts).
const OUTSIDE_DRIVER = "^(@/|(\\.\\./)+)(app|components|db|server)(/|$)";

const config = [
  ...nextVitals,
  ...nextTs,
  {
    ignores: [
      ".next/**",
      "node_modules/**",
      "bench/results/**",
      ".data/**",
      "db/migrations/**",
      "next-env.d.ts",
      "test-results/**",
      "playwright-report/**",
    ],
  },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
      "no-empty": ["error", { allowEmptyCatch: false }],
    },
  },
  restrict(
    ["lib/**"],
    [
      [
        internal(["app", "components", "server", "db", "inngest"]),
        "lib/ is isomorphic and imports nothing internal outside lib/.",
      ],
      [
        [...internal(["lib/server-only"]), "**/server-only/*"],
        "lib/ is isomorphic: the Node-only helpers of lib/server-only are for server/ and the executor.",
      ],
    ],
    { ignores: ["lib/trpc/**", "lib/server-only/**"] },
  ),
  // Node-only helpers (node:crypto, Buffer) shared by server/ and inngest/executor: lib/ is the one
  // layer both may import, and the executor may not import server/. Not guarded by the
  // "server-only" package, which throws outside a React Server bundle (the executor also runs in
  // plain Node: bench, crash-test child processes). components/ and the rest of lib/ are kept out.
  restrict(
    ["lib/server-only/**"],
    [
      [
        internal(["app", "components", "server", "db", "inngest"]),
        "lib/server-only imports nothing internal outside lib/.",
      ],
    ],
  ),
  // The client glue needs the router's type (erased at compile time), nothing else.
  restrict(
    ["lib/trpc/**"],
    [
      [
        internal(["app", "components", "server", "db", "inngest", "lib/server-only"]),
        "lib/trpc may import the AppRouter type only.",
      ],
    ],
    { allowTypeImports: true },
  ),
  restrict(
    ["components/**"],
    [
      [
        internal(["app", "server", "db", "inngest", "lib/server-only"]),
        "components/ get data through props or tRPC hooks; never import server/, db/, inngest/ or lib/server-only.",
      ],
    ],
  ),
  restrict(
    ["db/**"],
    [
      [
        internal(["app", "components", "server", "inngest/functions", "inngest/executor"]),
        "db/ sits below everything but lib/.",
      ],
    ],
  ),
  restrict(
    ["server/services/**"],
    [
      [
        internal(["app", "components", "server/trpc", "inngest/functions"]),
        "services are called by transports, never the reverse.",
      ],
      [
        internal(["inngest/run-driver", "inngest/executor"]),
        "services sit below the run driver: step execution lives in server/services/step-execution.",
      ],
    ],
  ),
  restrict(
    ["server/trpc/**"],
    [
      [
        internal(["app", "components", "db", "inngest"]),
        "tRPC routers are adapters: call server/services, not db/ directly.",
      ],
    ],
  ),
  restrict(
    ["server/mcp/**"],
    [
      [
        internal(["app", "components", "db", "inngest", "server/trpc"]),
        "MCP tools are adapters: call server/services, not db/ or inngest/.",
      ],
    ],
  ),
  // HTTP adapters may open the database handle for a service context (getDb), nothing more.
  restrict(
    ["server/http/**"],
    [
      [
        internal(["app", "components", "inngest", "server/trpc"]),
        "HTTP operations are adapters: call server/services.",
      ],
    ],
  ),
  // Metrics and traces sit beside db/: services and HTTP adapters call into them, never the reverse.
  restrict(
    ["server/observability/**"],
    [
      [
        internal(["app", "components", "inngest", "server/trpc", "server/services", "server/http"]),
        "server/observability is called by services and adapters; it reads db/ and lib/ only.",
      ],
    ],
  ),
  restrict(
    ["inngest/functions/**"],
    [
      [
        internal(["app", "components", "server/trpc"]),
        "Inngest functions call the run driver, server/services and lib only.",
      ],
    ],
  ),
  {
    files: ["inngest/run-driver/**"],
    ignores: [...TEST_FILES, "**/test-fixtures/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: OUTSIDE_DRIVER,
              allowTypeImports: true,
              message:
                "The run driver is orchestration: it imports server/ as types only, and calls step execution through env.stepEffects (StepEffects).",
            },
            {
              group: internal(["inngest/functions", "inngest/executor"]),
              message: "The run driver is called by inngest/functions, never the reverse.",
            },
          ],
        },
      ],
    },
  },
  restrict(
    ["inngest/executor/**"],
    [
      [
        internal(["app", "components", "server"]),
        "The executor is a standalone subsystem: it speaks HTTP to the app, it does not import it (shared Node helpers: lib/server-only).",
      ],
    ],
  ),
  restrict(
    ["app/**"],
    [[internal(["db"]), "app/ holds routes only: go through server/ for data."]],
  ),
];

export default config;
