import "server-only";
import { env } from "@/env";

/** What the operator turned on (env.ts); tests swap it with setObservabilityConfig. */
export interface ObservabilityConfig {
  metrics: { token?: string; allow?: readonly string[] };
  tracing?: { endpoint: string; headers: Record<string, string>; serviceName: string };
}

/** `k1=v1,k2=v2` (OTEL_EXPORTER_OTLP_HEADERS; values may be percent-encoded). */
export function parseOtlpHeaders(raw: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (raw ?? "").split(",")) {
    const at = pair.indexOf("=");
    if (at <= 0) continue;
    out[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return out;
}

function fromEnv(): ObservabilityConfig {
  return {
    metrics: { token: env.SLUICE_METRICS_TOKEN, allow: env.SLUICE_METRICS_ALLOW },
    tracing: env.OTEL_EXPORTER_OTLP_ENDPOINT
      ? {
          endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT,
          headers: parseOtlpHeaders(env.OTEL_EXPORTER_OTLP_HEADERS),
          serviceName: env.OTEL_SERVICE_NAME,
        }
      : undefined,
  };
}

// On globalThis: Next evaluates server modules several times per process.
const g = globalThis as typeof globalThis & { __sluiceObservability?: ObservabilityConfig };

export function observabilityConfig(): ObservabilityConfig {
  return (g.__sluiceObservability ??= fromEnv());
}

/** Tests: replaces the configuration (undefined: back to env.ts). */
export function setObservabilityConfig(config: ObservabilityConfig | undefined): void {
  g.__sluiceObservability = config;
}

/** Metrics are collected only while /api/metrics can answer (a token or an address list is set). */
export function isMetricsEnabled(): boolean {
  const { token, allow } = observabilityConfig().metrics;
  return !!token || !!allow?.length;
}

export function isTracingEnabled(): boolean {
  return !!observabilityConfig().tracing;
}
