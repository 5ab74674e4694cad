/**
 * The real Inngest server (`../shared/tools/inngest`, v1.43.0) as a test fixture: `inngest dev`,
 * or `inngest start` in signed mode on this machine's Postgres (its own database) and Redis (its
 * own database index). Every port is explicit, so several test files can each run their own
 * server at once; `stop()` ends it by its process id.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import postgres from "postgres";

export type RealMode = "dev" | "start";

/** Where the install script lives, relative to the repository root (CI puts shared/ beside it). */
export const INSTALL_SCRIPT = path.resolve(
  // Bundled benchmarks (CommonJS) have no import.meta: they run from the repository root.
  import.meta.dirname ?? path.join(process.cwd(), "inngest/conformance"),
  "../../../shared/tools/inngest/install.sh",
);

/**
 * The server binary: `SLUICE_INNGEST_BIN`, else what the shared install script unpacks. Returns
 * why not when neither is available (the suite then skips, or fails when it is required).
 */
export function inngestBinary(): { bin: string } | { missing: string } {
  const fromEnv = process.env.SLUICE_INNGEST_BIN;
  if (fromEnv) {
    return fs.existsSync(fromEnv)
      ? { bin: fromEnv }
      : { missing: `SLUICE_INNGEST_BIN=${fromEnv} does not exist` };
  }
  if (!fs.existsSync(INSTALL_SCRIPT))
    return { missing: `the Inngest server is not on this machine (${INSTALL_SCRIPT} is missing)` };
  const out = spawnSync("bash", [INSTALL_SCRIPT], { encoding: "utf8", timeout: 120_000 });
  const bin = out.stdout.trim().split("\n").pop() ?? "";
  if (out.status !== 0 || !bin || !fs.existsSync(bin))
    return { missing: `${INSTALL_SCRIPT} failed: ${(out.stderr || out.stdout).slice(0, 500)}` };
  return { bin };
}

/** Ports of one server; `base` + 0..3 and `grpc` + 0..1 must be free. */
export interface ServerPorts {
  base: number;
  grpc: number;
}

export interface InngestServer {
  mode: RealMode;
  /** `http://127.0.0.1:<port>`: the API, event ingestion and the dashboard. */
  url: string;
  pid: number;
  /** Signed mode only. */
  signingKey?: string;
  eventKey?: string;
  /** What the server printed (for failure messages). */
  output(): string;
  stop(): Promise<void>;
}

export interface StartOptions {
  mode: RealMode;
  bin: string;
  ports: ServerPorts;
  /** The app's serve URL the server syncs. */
  appUrl: string;
  /** start mode: the Postgres server (a fresh database is created on it) and the Redis db index. */
  postgresUrl?: string;
  redisDb?: number;
  label?: string;
  /** start mode: the keys the app was configured with (else generated). */
  keys?: { signingHex: string; eventKey: string };
}

export async function startInngestServer(o: StartOptions): Promise<InngestServer> {
  const port = o.ports.base;
  const common = [
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
    "-u",
    o.appUrl,
    "--connect-gateway-port",
    String(port + 1),
    "--connect-gateway-grpc-port",
    String(o.ports.grpc),
    "--connect-executor-grpc-port",
    String(o.ports.grpc + 1),
    // Function-level retries (infrastructure errors) after 1 s instead of 15 s+ (step retries are
    // the engine's own, see execute-step.ts).
    "--retry-interval",
    "1",
    "--tick",
    "50",
    "--log-level",
    "warn",
  ];
  let args: string[];
  let signingKey: string | undefined;
  let eventKey: string | undefined;
  let dropDatabase: (() => Promise<void>) | undefined;
  if (o.mode === "dev") {
    args = ["dev", "--no-discovery", "--poll-interval", "2", ...common];
  } else {
    const hex = o.keys?.signingHex ?? randomBytes(32).toString("hex");
    signingKey = `signkey-prod-${hex}`;
    eventKey = o.keys?.eventKey ?? `evt-${randomBytes(8).toString("hex")}`;
    const base = o.postgresUrl ?? "postgres://postgres@127.0.0.1:5432/postgres";
    const name = `inngest_${(o.label ?? "t").replace(/\W/g, "").slice(0, 16)}_${Date.now().toString(36)}`;
    const admin = postgres(base, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database "${name}"`);
    await admin.end();
    dropDatabase = async () => {
      const again = postgres(base, { max: 1, onnotice: () => {} });
      await again.unsafe(`drop database if exists "${name}" with (force)`).catch(() => undefined);
      await again.end();
    };
    const url = new URL(base);
    url.pathname = `/${name}`;
    const redisDb = o.redisDb ?? 1;
    await flushRedisDb(redisDb);
    args = [
      "start",
      "--signing-key",
      hex,
      "--event-key",
      eventKey,
      "--postgres-uri",
      url.toString(),
      "--redis-uri",
      `redis://127.0.0.1:6379/${redisDb}`,
      "--poll-interval",
      "2",
      ...common,
    ];
  }
  const child = spawn(o.bin, args, { stdio: ["ignore", "pipe", "pipe"], detached: false });
  let log = "";
  const keep = (b: Buffer) => {
    log = (log + b.toString("utf8")).slice(-20_000);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
  const server: InngestServer = {
    mode: o.mode,
    url,
    pid: child.pid!,
    signingKey,
    eventKey,
    output: () => log,
    stop: async () => {
      await stopChild(child, exited);
      await dropDatabase?.();
    },
  };
  try {
    await waitHealthy(url, exited, () => log);
  } catch (e) {
    await server.stop();
    throw e;
  }
  return server;
}

async function waitHealthy(url: string, exited: Promise<number | null>, log: () => string) {
  let gone: number | null | undefined;
  void exited.then((c) => (gone = c ?? -1));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (gone !== undefined)
      throw new Error(`the Inngest server exited (${gone}) before it was ready:\n${log()}`);
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1_000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the Inngest server at ${url} was not healthy within 60 s:\n${log()}`);
}

async function stopChild(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const killed = await Promise.race([
    exited.then(() => true),
    new Promise<boolean>((r) => setTimeout(() => r(false), 5_000)),
  ]);
  if (!killed) {
    child.kill("SIGKILL");
    await exited;
  }
}

/** Empties one Redis database index (a test's own), speaking RESP over a socket. */
async function flushRedisDb(index: number): Promise<void> {
  const net = await import("node:net");
  await new Promise<void>((resolve, reject) => {
    const sock = net.connect(6379, "127.0.0.1");
    let got = "";
    sock.setTimeout(5_000, () => {
      sock.destroy();
      reject(new Error("redis at 127.0.0.1:6379 did not answer"));
    });
    sock.on("error", reject);
    sock.on("data", (d) => {
      got += d.toString();
      if ((got.match(/\r\n/g) ?? []).length >= 2) {
        sock.end();
        if (got.startsWith("-") || got.includes("\r\n-"))
          reject(new Error(`redis refused: ${got}`));
        else resolve();
      }
    });
    sock.write(`SELECT ${index}\r\nFLUSHDB\r\n`);
  });
}
