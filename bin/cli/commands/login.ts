import { str } from "../args";
import type { Command } from "../command";
import { configPath, normalizeUrl, readConfig, writeConfig } from "../config";
import { usageError } from "../errors";
import { EXIT } from "../exit-codes";
import { ApiClient } from "../http";
import { printEnvelope, readStdin } from "../io";

export const loginCommand: Command = {
  name: "login",
  summary: "Store the server URL and an API token (checked with GET /api/v1/me)",
  help: `Usage: sluice login [--url <server>] [--token <slu_…> | --token -]

Checks the token against the server (GET /api/v1/me), then stores both in
$XDG_CONFIG_HOME/sluice/config.json (default ~/.config/sluice/config.json), mode 0600.
SLUICE_URL and SLUICE_TOKEN are used when a flag is missing, and always override the
stored file for every other command. "--token -" reads the token from stdin (keeps it
out of your shell history).

Prints { ok, url, user, workspace, role, configPath }.
Exit codes: 0 stored, 10 bad URL / missing value, 20 token refused (401), 40 server unreachable.

Example:
  sluice login --url https://sluice.example.com --token "$SLUICE_TOKEN"`,
  options: { url: { type: "string" }, token: { type: "string" } },
  async run({ values }) {
    const stored = readConfig();
    const rawUrl = str(values, "url") ?? process.env.SLUICE_URL?.trim() ?? stored?.url;
    let token = str(values, "token") ?? process.env.SLUICE_TOKEN?.trim() ?? "";
    if (token === "-") token = (await readStdin()).trim();
    if (!rawUrl) throw usageError("Give the server URL: sluice login --url https://…");
    if (!token) throw usageError("Give an API token: --token slu_… (Settings → API tokens)");
    const url = normalizeUrl(rawUrl);
    const me = await new ApiClient(url, token).get<{
      user: { email: string; name: string };
      currentWorkspace: { id: string; name: string; role: string } | null;
    }>("/me");
    const file = configPath();
    writeConfig({ url, token }, file);
    printEnvelope({
      ok: true,
      url,
      user: { email: me.user.email, name: me.user.name },
      workspace: me.currentWorkspace
        ? { id: me.currentWorkspace.id, name: me.currentWorkspace.name }
        : null,
      role: me.currentWorkspace?.role ?? null,
      configPath: file,
    });
    return EXIT.ok;
  },
};
