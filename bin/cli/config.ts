import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { usageError } from "./errors";

/** The environment the CLI reads (SLUICE_URL, SLUICE_TOKEN, XDG_CONFIG_HOME). */
export type Env = Readonly<Record<string, string | undefined>>;

/** What `sluice login` stores. */
export interface CliConfig {
  url: string;
  token: string;
}

/** `$XDG_CONFIG_HOME/sluice/config.json`, else `~/.config/sluice/config.json`. */
export function configPath(env: Env = process.env): string {
  const base = env.XDG_CONFIG_HOME?.trim() || path.join(os.homedir(), ".config");
  return path.join(base, "sluice", "config.json");
}

/** The stored config, or null when there is none. A malformed file is an error, not ignored. */
export function readConfig(file = configPath()): Partial<CliConfig> | null {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
  const value = JSON.parse(text) as unknown;
  if (!value || typeof value !== "object") throw new Error(`${file} is not a JSON object`);
  const { url, token } = value as Record<string, unknown>;
  return {
    ...(typeof url === "string" ? { url } : {}),
    ...(typeof token === "string" ? { token } : {}),
  };
}

/**
 * Writes the config readable by its owner only: the directory 0700, the file 0600 — also when it
 * existed before with looser permissions (`mode` on open applies only to new files).
 */
export function writeConfig(config: CliConfig, file = configPath()): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(config, null, 2) + "\n", { mode: 0o600 });
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
}

/** The server URL without trailing slashes; refuses anything but http(s). */
export function normalizeUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw usageError(`The server URL "${url}" is not a URL (e.g. https://sluice.example.com)`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:")
    throw usageError(`The server URL must be http(s), got ${u.protocol}`);
  return u.toString().replace(/\/+$/, "");
}

/** Where requests go: `SLUICE_URL`/`SLUICE_TOKEN` override the stored config, field by field. */
export function resolveConnection(
  env: Env = process.env,
  stored: Partial<CliConfig> | null = readConfig(configPath(env)),
): { url: string | null; token: string | null } {
  return {
    url: env.SLUICE_URL?.trim() || stored?.url || null,
    token: env.SLUICE_TOKEN?.trim() || stored?.token || null,
  };
}
