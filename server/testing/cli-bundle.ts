/**
 * The `sluice` CLI bundled into one ES module for tests that run it as a subprocess against a
 * route server: each command then costs a node start, not a TypeScript compile (bin/sluice.mjs
 * loads the sources through tsx). Bare imports stay external, so the bundle must live under
 * node_modules to resolve them; `dir` is the caller's (one per worker: projects run in parallel).
 */
import fs from "node:fs";
import path from "node:path";
import { build } from "esbuild";

export async function bundleCli(dir: string): Promise<string> {
  fs.mkdirSync(dir, { recursive: true });
  const cli = path.join(dir, "sluice.mjs");
  const entry = path.join(dir, "entry.ts");
  fs.writeFileSync(
    entry,
    `import { main } from ${JSON.stringify(path.resolve("bin/cli/main.ts"))};\nprocess.exitCode = await main(process.argv.slice(2));\n`,
  );
  await build({
    entryPoints: [entry],
    outfile: cli,
    bundle: true,
    platform: "node",
    format: "esm",
    packages: "external",
    alias: { "@": path.resolve(".") },
    logLevel: "error",
  });
  return cli;
}
