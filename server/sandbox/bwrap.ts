import "server-only";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { Logger } from "@/lib/log";

/**
 * The isolation `script` steps run in: Debian's bubblewrap (`bwrap`). Each script gets fresh
 * user, pid, ipc, uts and cgroup namespaces (and a network namespace of its own unless the
 * workspace allows the network), a read-only view of the system folders only, its run's scratch
 * folder read-write, a private /tmp, and uid/gid 65534 (nobody). The data folder, the master
 * key, the app's source tree and other runs' scratch folders are never mounted; when one lies
 * inside a mounted system folder it is covered by an empty tmpfs.
 *
 * Sluice as root: bwrap builds the sandbox as root (so it can reach a scratch folder under a
 * 0700 parent) and `setpriv` inside drops to 65534 with no capabilities before the shell starts;
 * the script is uid 65534 on the host too. Not `--unshare-user --uid 65534`: that maps the inside
 * user to host root, owner of every root file it can see (it could read /etc/shadow). Not bwrap
 * started as 65534 either: it cannot reach folders under the data folder or a 0700 parent.
 * Sluice as another user: bwrap builds an unprivileged user namespace (uid 65534 inside, mapped
 * to Sluice's own user) and forbids further user namespaces inside.
 *
 * No `--new-session`: the script must stay in the process group the runner signals (SIGTERM, then
 * SIGKILL). Without a controlling terminal (stdin is /dev/null, output goes to pipes, the runner's
 * child starts its own session) TIOCSTI has no terminal to inject into.
 */

/** The user and group a sandboxed script runs as (inside, and on the host when Sluice is root). */
export const SANDBOX_UID = 65534;
export const SANDBOX_GID = 65534;
/** Where the run's scratch folder appears inside the sandbox (HOME and the default cwd). */
export const SANDBOX_SCRATCH = "/scratch";
/** Size of the sandbox's private /tmp (a tmpfs: it counts against memory, so it is capped). */
export const SANDBOX_TMP_BYTES = 1024 ** 3;

/** Host folders shown read-only (symlinks, as on merged-/usr systems, are recreated as symlinks). */
const SYSTEM_PATHS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"];
/** DNS on systemd hosts: /etc/resolv.conf points here. Shown only when the network is allowed. */
const RESOLVER_PATHS = ["/run/systemd/resolve"];

/** Operator configuration (env.ts: SLUICE_SCRIPT_SANDBOX). */
export interface ScriptSandboxConfig {
  /** `bwrap` (the default) or `none`: the explicit, logged opt-out for machines without bwrap. */
  mode: "bwrap" | "none";
  /** The bwrap program; absent: `bwrap` looked up on the scripts' PATH. */
  bwrapPath?: string;
  /** Host paths a script must never see (the data folder, the app's folder); masked if mounted. */
  hiddenPaths?: string[];
}

export interface SandboxMount {
  host: string;
  inside: string;
  writable: boolean;
}

export interface SandboxSpec {
  /** The resolved bwrap program (see probeSandbox). */
  bwrap: string;
  /** Later mounts cover earlier ones (a read-only checkout inside the writable scratch). */
  mounts: SandboxMount[];
  /** The working directory, inside the sandbox. */
  cwd: string;
  network: boolean;
  hiddenPaths?: string[];
}

export type SandboxProbe = { ok: true; bwrap: string } | { ok: false; reason: string };

function within(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith("/") ? parent : parent + "/");
}

function systemArgs(network: boolean): string[] {
  const args: string[] = [];
  for (const p of [...SYSTEM_PATHS, ...(network ? RESOLVER_PATHS : [])]) {
    const st = fs.lstatSync(p, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isSymbolicLink()) args.push("--symlink", fs.readlinkSync(p), p);
    else if (st.isDirectory()) args.push("--ro-bind", p, p);
  }
  return args;
}

/**
 * The program and arguments that run `argv` inside the sandbox. Pure apart from reading which
 * system folders exist; `asRoot` decides how the script becomes 65534 (see above).
 */
export function sandboxCommand(
  spec: SandboxSpec,
  argv: readonly string[],
  asRoot: boolean,
): { file: string; args: string[] } {
  const mounted = SYSTEM_PATHS.filter((p) =>
    fs.lstatSync(p, { throwIfNoEntry: false })?.isDirectory(),
  );
  const masks = (spec.hiddenPaths ?? [])
    .map((p) => path.resolve(p))
    .filter((p) => mounted.some((m) => within(p, m)) && fs.existsSync(p))
    .flatMap((p) => ["--tmpfs", p]);
  const identity = asRoot
    ? []
    : [
        "--unshare-user",
        "--uid",
        String(SANDBOX_UID),
        "--gid",
        String(SANDBOX_GID),
        "--disable-userns",
      ];
  const dropRoot = asRoot
    ? [
        "setpriv",
        `--reuid=${SANDBOX_UID}`,
        `--regid=${SANDBOX_GID}`,
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--",
      ]
    : [];
  const bwrapArgs = [
    ...identity,
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    ...(spec.network ? [] : ["--unshare-net"]),
    "--hostname",
    "sluice-script",
    "--die-with-parent",
    ...systemArgs(spec.network),
    ...masks,
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--perms",
    "1777",
    "--size",
    String(SANDBOX_TMP_BYTES),
    "--tmpfs",
    "/tmp",
    ...spec.mounts.flatMap((m) => [m.writable ? "--bind" : "--ro-bind", m.host, m.inside]),
    "--chdir",
    spec.cwd,
    "--",
    ...dropRoot,
    // bwrap ignores SIGTERM (below) so a TERM to the group reaches the script without tearing
    // the sandbox down at once (SIGKILL does that); the script gets the default back.
    "env",
    "--default-signal=TERM",
    ...argv,
  ];
  return { file: "env", args: ["--ignore-signal=TERM", spec.bwrap, ...bwrapArgs] };
}

function findOnPath(name: string, searchPath: string): string | undefined {
  for (const dir of searchPath.split(":").filter(Boolean)) {
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // Not in this folder: keep looking.
    }
  }
  return undefined;
}

const probes = new Map<string, Promise<SandboxProbe>>();

/**
 * Whether bwrap can build the sandbox on this machine: found, and allowed to create its
 * namespaces (containers may refuse user namespaces). Probed once per program and cached; the
 * reason names what is missing and how to fix it.
 */
export function probeSandbox(
  bwrapPath: string | undefined,
  searchPath: string,
): Promise<SandboxProbe> {
  const key = `${bwrapPath ?? ""}\0${searchPath}`;
  let probe = probes.get(key);
  if (!probe) {
    probe = runProbe(bwrapPath, searchPath);
    probes.set(key, probe);
  }
  return probe;
}

const INSTALL_HINT = "install the bubblewrap package (apt-get install bubblewrap)";

async function runProbe(bwrapPath: string | undefined, searchPath: string): Promise<SandboxProbe> {
  const bwrap = bwrapPath ?? findOnPath("bwrap", searchPath);
  if (!bwrap)
    return {
      ok: false,
      reason: `script steps need bubblewrap (bwrap): not found on PATH (${searchPath}); ${INSTALL_HINT}`,
    };
  try {
    fs.accessSync(bwrap, fs.constants.X_OK);
  } catch {
    return {
      ok: false,
      reason: `script steps need bubblewrap (bwrap): ${bwrap} not found or not executable; ${INSTALL_HINT}`,
    };
  }
  const { file, args } = sandboxCommand(
    { bwrap, mounts: [], cwd: "/", network: false },
    ["true"],
    process.getuid?.() === 0,
  );
  const result = await new Promise<{ code: number | null; stderr: string; error?: Error }>(
    (resolve) => {
      const child = spawn(file, args, {
        cwd: "/",
        env: { PATH: searchPath } as Record<string, string> as NodeJS.ProcessEnv,
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
      child.on("error", (error) => resolve({ code: null, stderr, error }));
      child.on("close", (code) => resolve({ code, stderr }));
    },
  );
  if (result.code === 0) return { ok: true, bwrap };
  const why =
    (result.error?.message ?? result.stderr.trim().split("\n").pop()) || `exit ${result.code}`;
  return {
    ok: false,
    reason: `script steps need bubblewrap (bwrap), but it cannot build its sandbox on this machine: ${why}. It must be allowed to create namespaces: ${
      process.getuid?.() === 0
        ? "in a container, run it with CAP_SYS_ADMIN or a seccomp profile that permits unshare"
        : "enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0)"
    }`,
  };
}

/**
 * Says at start-up how script steps will be isolated: loudly when they run unsandboxed (the
 * operator's SLUICE_SCRIPT_SANDBOX=none) or will be refused (no usable bwrap, and why).
 */
export async function reportScriptSandbox(
  config: ScriptSandboxConfig | undefined,
  log: Logger,
  searchPath: string,
): Promise<void> {
  if (config?.mode === "none") {
    log.warn(
      "SLUICE_SCRIPT_SANDBOX=none: script steps run UNSANDBOXED on this host as the app's user, with its file access (data folder, master key). Use only on a development machine.",
    );
    return;
  }
  const probe = await probeSandbox(config?.bwrapPath, searchPath);
  if (probe.ok) log.info("script steps run in a bubblewrap sandbox", { bwrap: probe.bwrap });
  else log.warn(`script steps will be refused: ${probe.reason}`);
}
