import { spawn } from "node:child_process";
import path from "node:path";

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the bundled CLI (`bundleCli`) as a subprocess against `origin` with `token`, in `home`
 * (its config folder too), stdin a closed pipe (not a terminal), as the CLI tests drive it.
 */
export function runCli(
  opts: { cli: string; home: string; origin: string; token: string },
  args: string[],
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [opts.cli, ...args], {
      cwd: opts.home,
      env: {
        NODE_ENV: "test",
        PATH: process.env.PATH,
        HOME: opts.home,
        XDG_CONFIG_HOME: path.join(opts.home, ".config"),
        SLUICE_URL: opts.origin,
        SLUICE_TOKEN: opts.token,
      },
      timeout: 60_000,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end();
  });
}

/** `runCli` for commands that print JSON: stdout parsed (`{}` when empty). */
export async function runCliJson(
  opts: { cli: string; home: string; origin: string; token: string },
  args: string[],
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads the JSON freely
): Promise<{ code: number | null; stderr: string; json: Record<string, any> }> {
  const r = await runCli(opts, args);
  return { code: r.code, stderr: r.stderr, json: r.stdout ? JSON.parse(r.stdout) : {} };
}
