/**
 * The parent side of the crash tests: starts engine-crash-app.ts as a child process on a database
 * (a PGlite folder or a Postgres URL), reads the state it writes every 100–200 ms, and waits for a
 * condition on it. Shared by crash.test.ts, reliability.test.ts and bench/reliability.ts.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";

// From the repository root (tests and bench/run.sh run there): a bundled bench has no __dirname.
const FIXTURE = path.resolve("inngest/run-driver/test-fixtures/engine-crash-app.ts");

export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

export interface CrashChild {
  proc: ChildProcess;
  /** `http://127.0.0.1:<port>`: the child's app (the SDK handler and /api/hooks/…). */
  origin: string;
  /** SIGKILL, resolved once the process is gone. */
  kill(): Promise<void>;
}

/** Starts the child in `mode` on `target`; resolves when it printed "ready". */
export async function startCrashChild(opts: {
  target: string;
  /** Where the state file goes. */
  dir: string;
  mode: string;
  runId?: string;
  env?: Record<string, string>;
}): Promise<CrashChild> {
  const [appPort, execPort] = [await freePort(), await freePort()];
  const proc = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", FIXTURE], {
    cwd: process.cwd(),
    env: {
      ...process.env,
      ENGINE_DB: opts.target,
      ENGINE_APP_PORT: String(appPort),
      SLUICE_EXECUTOR_PORT: String(execPort),
      ENGINE_MODE: opts.mode,
      ENGINE_RUN_ID: opts.runId ?? "",
      ENGINE_OUT: path.join(opts.dir, "state.json"),
      NODE_ENV: "test",
      ...opts.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  // Also kept in the folder: what the child logged is the first clue when a wait times out.
  const log = fs.createWriteStream(path.join(opts.dir, "child.log"), { flags: "a" });
  proc.stderr!.on("data", (d) => {
    stderr += String(d);
    log.write(d);
  });
  proc.once("exit", () => log.end());
  const exited = new Promise<void>((r) => proc.once("exit", () => r()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`child did not start: ${stderr}`)), 90_000);
    proc.stdout!.on("data", (d) => {
      if (String(d).includes("ready")) {
        clearTimeout(timer);
        resolve();
      }
    });
    proc.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`child exited with ${code}: ${stderr}`));
    });
  });
  return {
    proc,
    origin: `http://127.0.0.1:${appPort}`,
    async kill() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
      await exited;
    },
  };
}

/** The state the child wrote last, or undefined before its first write. */
export function readChildState<T>(dir: string): T | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, "state.json"), "utf8")) as T;
  } catch {
    return undefined;
  }
}

/** Polls `check` every 50 ms until it returns a value; fails after `ms` with the last state. */
export async function untilState<T>(
  dir: string,
  check: () => T | undefined | false,
  what: string,
  ms = 30_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = check();
    if (v) return v;
    if (Date.now() > end) {
      const log = fs.existsSync(path.join(dir, "child.log"))
        ? fs.readFileSync(path.join(dir, "child.log"), "utf8").slice(-3000)
        : "";
      throw new Error(
        `timed out waiting for ${what}: ${JSON.stringify(readChildState(dir))}\nchild log: ${log}`,
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
