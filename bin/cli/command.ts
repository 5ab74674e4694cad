import type { OptionSpecs, ParsedArgs } from "./args";
import { configPath, normalizeUrl, resolveConnection, type Env } from "./config";
import { CliError, type CliError as CliErrorType } from "./errors";
import { EXIT } from "./exit-codes";
import { ApiClient } from "./http";

/** One `sluice <name>` command: its flags, its help text, and what it does. */
export interface Command {
  name: string;
  /** One line for `sluice --help`. */
  summary: string;
  /** The full `sluice <name> --help` text. */
  help: string;
  options: OptionSpecs;
  maxPositionals?: number;
  run(args: ParsedArgs): Promise<number>;
  /** The stdout envelope of a refusal; default `{ ok: false, error }`. */
  errorEnvelope?(error: CliErrorType, args: ParsedArgs | null): unknown;
}

/** The API client for the configured server: SLUICE_URL/SLUICE_TOKEN, else `sluice login`'s file. */
export function connect(env: Env = process.env): ApiClient {
  const { url, token } = resolveConnection(env);
  if (!url || !token)
    throw new CliError(
      EXIT.contract,
      "not_logged_in",
      `No ${!url ? "server URL" : "API token"}: run \`sluice login --url <server> --token <slu_…>\` or set SLUICE_URL and SLUICE_TOKEN (config: ${configPath(env)})`,
    );
  return new ApiClient(normalizeUrl(url), token);
}
