import "server-only";
import http from "node:http";
import https from "node:https";
import type { ResolvedAddress } from "./outbound-host";

/**
 * Keep-alive agents for safeFetch, one per (protocol, host, port, pinned address, TLS servername):
 * a Node agent pools sockets by host and port only, so a socket connected to one checked address
 * could otherwise serve a request pinned to another. Keyed by the pinned address, a reused socket
 * is always one that connected to the address this hop's SSRF check just approved.
 * Idle sockets are few and short-lived (a server's own keep-alive timeout is often 5 s), agents
 * are bounded (least recently used evicted, their idle sockets closed).
 */

/** Idle time after which a pooled socket is closed (below Node's and most servers' 5 s). */
export const KEEP_ALIVE_IDLE_MS = 4_000;
const MAX_FREE_SOCKETS_PER_AGENT = 8;
const MAX_AGENTS = 64;

const agents = new Map<string, http.Agent>();

function keepAliveAgentKey(
  url: URL,
  pinned: ResolvedAddress,
  servername: string | undefined,
): string {
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return [url.protocol, url.hostname.toLowerCase(), port, pinned.address, servername ?? ""].join(
    "|",
  );
}

/** The pooled agent for one pinned destination (created on first use, most recent last). */
export function keepAliveAgent(
  url: URL,
  pinned: ResolvedAddress,
  servername: string | undefined,
): http.Agent {
  const key = keepAliveAgentKey(url, pinned, servername);
  let agent = agents.get(key);
  if (agent) {
    agents.delete(key);
    agents.set(key, agent);
    return agent;
  }
  const options = {
    keepAlive: true,
    maxFreeSockets: MAX_FREE_SOCKETS_PER_AGENT,
    // A pooled socket idle this long is closed by the agent (an in-flight request's socket is
    // governed by safeFetch's deadline instead).
    timeout: KEEP_ALIVE_IDLE_MS,
    scheduling: "lifo" as const,
  };
  agent = url.protocol === "https:" ? new https.Agent(options) : new http.Agent(options);
  agents.set(key, agent);
  if (agents.size > MAX_AGENTS) {
    const [oldestKey, oldest] = agents.entries().next().value as [string, http.Agent];
    agents.delete(oldestKey);
    closeIdleSockets(oldest);
  }
  return agent;
}

/**
 * Closes an evicted agent's idle sockets; one still serving a request returns to it when done and
 * is closed by the idle timeout.
 */
function closeIdleSockets(agent: http.Agent): void {
  for (const list of Object.values(agent.freeSockets)) for (const s of list ?? []) s.destroy();
}
