// Patches postgres.js 3.4.9 (postinstall) against a process crash when Postgres restarts: a small
// write deferred with setImmediate runs after the connection closed and calls `null.write(...)`,
// an uncaught TypeError that takes the whole app down (porsager/postgres#1154, #1066, #1208; fix
// PRs #1168/#1176/#1209 not released). The teardown paths also cancel that write without clearing
// its timer, so a reconnected connection would never flush a small write again (hang). Found by
// the reliability suite (inngest/run-driver/reliability.test.ts, Postgres stopped mid-run).
// Idempotent; does nothing (and says so) for another version, where the fix may have landed.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const MARK = "/* sluice-patch: null socket */";
const require = createRequire(import.meta.url);
let root;
try {
  // The package's exports hide package.json: climb from its entry point instead.
  root = path.dirname(require.resolve("postgres"));
  while (path.basename(root) !== "postgres" || !fs.existsSync(path.join(root, "package.json"))) {
    if (root === path.dirname(root)) process.exit(0);
    root = path.dirname(root);
  }
} catch {
  process.exit(0); // not installed (yet): nothing to patch
}
const { version } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
if (version !== "3.4.9") {
  console.warn(`patch-postgres: postgres ${version} is not 3.4.9; not patched (check upstream)`);
  process.exit(0);
}
for (const flavour of ["src", "cjs/src", "cf/src"]) {
  const file = path.join(root, flavour, "connection.js");
  if (!fs.existsSync(file)) continue;
  let text = fs.readFileSync(file, "utf8");
  if (text.includes(MARK)) continue;
  const write = "  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)\n";
  const teardown = "\n    clearImmediate(nextWriteTimer)\n";
  if (!text.includes(write) || text.split(teardown).length !== 3)
    throw new Error(`patch-postgres: ${file} does not look like postgres 3.4.9's; not patched`);
  text = text
    .replace(
      write,
      `  function nextWrite(fn) {\n    if (!socket) { ${MARK}\n      nextWriteTimer !== null && clearImmediate(nextWriteTimer)\n      chunk = nextWriteTimer = null\n      return false\n    }\n    const x = socket.write(chunk, fn)\n`,
    )
    .replaceAll(
      teardown,
      `\n    clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null ${MARK}\n`,
    );
  fs.writeFileSync(file, text);
}
