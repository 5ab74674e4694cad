import "server-only";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/**
 * The Prometheus registry and every Sluice metric (docs/operations.md "Metrics"). One per
 * process, on globalThis: Next evaluates modules several times, and a second registry would
 * split the counts. Labels are bounded: workflow ids, trigger kinds, step types, statuses and
 * reason codes — never a run id (metrics.test.ts checks every scraped label value).
 */
function create() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  // Seconds; a run can wait days on a gate, a step mostly takes milliseconds.
  const runBuckets = [0.1, 0.5, 1, 5, 15, 60, 300, 1800, 3600, 21_600, 86_400];
  const stepBuckets = [0.005, 0.025, 0.1, 0.5, 1, 5, 15, 60, 300, 3600];
  return {
    registry,
    runsStarted: new Counter({
      name: "sluice_runs_started_total",
      help: "Runs that started executing (after admission), by workflow and trigger kind.",
      labelNames: ["workflow_id", "trigger"] as const,
      registers,
    }),
    runsFinished: new Counter({
      name: "sluice_runs_finished_total",
      help: "Runs that ended, by workflow, trigger kind and status (completed, failed, cancelled, timed_out).",
      labelNames: ["workflow_id", "trigger", "status"] as const,
      registers,
    }),
    runDuration: new Histogram({
      name: "sluice_run_duration_seconds",
      help: "Start to end of runs that ended (gate waits included), by workflow and status.",
      labelNames: ["workflow_id", "status"] as const,
      buckets: runBuckets,
      registers,
    }),
    startWait: new Histogram({
      name: "sluice_run_start_wait_seconds",
      help: "Queued to started: admission wait (concurrency and workspace limits) plus executor pickup.",
      labelNames: ["trigger"] as const,
      buckets: runBuckets,
      registers,
    }),
    stepDuration: new Histogram({
      name: "sluice_step_duration_seconds",
      help: "Step attempts of ended runs, by step type and outcome (completed, failed, cancelled).",
      labelNames: ["step_type", "outcome"] as const,
      buckets: stepBuckets,
      registers,
    }),
    webhookDeliveries: new Counter({
      name: "sluice_webhook_deliveries_total",
      help: "Webhook requests by outcome (accepted, duplicate, skipped, rejected, failed) and reason code.",
      labelNames: ["outcome", "reason"] as const,
      registers,
    }),
    activeRuns: new Gauge({
      name: "sluice_runs_active",
      help: "Runs not ended yet, by status (queued, running, waiting, cancel_requested); read at scrape time.",
      labelNames: ["status"] as const,
      registers,
    }),
    oldestQueued: new Gauge({
      name: "sluice_runs_queued_oldest_age_seconds",
      help: "Age of the oldest run waiting for admission (0 when none).",
      registers,
    }),
    waitingGates: new Gauge({
      name: "sluice_gates_waiting",
      help: "Steps waiting (approval, task, event, delay, child run) by step type and age bucket.",
      labelNames: ["step_type", "age"] as const,
      registers,
    }),
    outboxPending: new Gauge({
      name: "sluice_outbox_pending",
      help: "Outbox messages not delivered yet.",
      registers,
    }),
    outboxLag: new Gauge({
      name: "sluice_outbox_lag_seconds",
      help: "How long the oldest due, undelivered outbox message has been waiting (0 when none).",
      registers,
    }),
    executorDue: new Gauge({
      name: "sluice_executor_jobs_due",
      help: "Embedded executor jobs that are due and not leased by a worker.",
      registers,
    }),
    executorLag: new Gauge({
      name: "sluice_executor_lag_seconds",
      help: "How long the oldest due, unleased executor job has been waiting (0 when none).",
      registers,
    }),
    dbConnections: new Gauge({
      name: "sluice_db_connections",
      help: "Postgres connections of Sluice (all instances) by state, from pg_stat_activity; PGlite: 1 idle.",
      labelNames: ["state"] as const,
      registers,
    }),
    dbPing: new Gauge({
      name: "sluice_db_scrape_seconds",
      help: "Time the scrape's database reads took (a rough database latency probe).",
      registers,
    }),
  };
}

export type Metrics = ReturnType<typeof create>;

const g = globalThis as typeof globalThis & { __sluiceMetrics?: Metrics };

export function metrics(): Metrics {
  return (g.__sluiceMetrics ??= create());
}

/** Tests: starts from zero. */
export function resetMetrics(): void {
  g.__sluiceMetrics?.registry.resetMetrics();
}
