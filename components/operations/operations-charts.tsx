"use client";
import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import type { OperationsOverview } from "@/lib/schemas/operations";
import { duration, hourLabel } from "./format";
import styles from "./operations.module.css";

// SVG presentation attributes do not resolve CSS variables everywhere: the theme's hex values.
const ACCENT = "#2f5bea";
const DANGER = "#c8322a";
const WARN = "#a85d00";
const MUTED = "#5b6577";

/** A chart with a visible title and a text summary (the chart itself is a picture of it). */
function Figure({
  id,
  title,
  summary,
  children,
}: {
  id: string;
  title: string;
  summary: string;
  children: React.ReactNode;
}) {
  return (
    <figure className={`card ${styles.figure}`} aria-labelledby={`${id}-title`} data-chart={id}>
      <figcaption className="card-head">
        <h2 id={`${id}-title`}>{title}</h2>
        <p className="small muted">{summary}</p>
      </figcaption>
      <div className={styles.chart}>
        <ResponsiveContainer
          width="100%"
          height="100%"
          initialDimension={{ width: 600, height: 240 }}
        >
          {children as React.ReactElement}
        </ResponsiveContainer>
      </div>
    </figure>
  );
}

export function RunsPerHourChart({ data }: { data: OperationsOverview }) {
  const rows = data.timeline.map((t) => ({
    label: hourLabel(t.at, data.range),
    succeeded: t.runs - t.failed,
    failed: t.failed,
  }));
  return (
    <Figure
      id="runs-per-hour"
      title="Runs per hour"
      summary={`${data.totals.runs} runs, ${data.totals.failed} failed or timed out.`}
    >
      <BarChart data={rows} margin={{ top: 8, right: 8, bottom: 0, left: -16 }}>
        <CartesianGrid strokeDasharray="3 3" vertical={false} />
        <XAxis dataKey="label" tick={{ fontSize: 11, fill: MUTED }} minTickGap={16} />
        <YAxis allowDecimals={false} tick={{ fontSize: 11, fill: MUTED }} />
        <Tooltip />
        <Legend />
        <Bar dataKey="succeeded" name="Other runs" stackId="runs" fill={ACCENT} />
        <Bar dataKey="failed" name="Failed" stackId="runs" fill={DANGER} />
      </BarChart>
    </Figure>
  );
}

export function WebhookRejectsChart({ data }: { data: OperationsOverview }) {
  const rows = data.timeline.map((t) => ({
    label: hourLabel(t.at, data.range),
    rejects: t.webhookRejects,
  }));
  return (
    <Figure
      id="webhook-rejects"
      title="Webhook rejects per hour"
      summary={`${data.webhooks.rejected} rejected, ${data.webhooks.accepted} accepted, ${data.webhooks.duplicates} duplicates.`}
    >
      <BarChart data={rows} margin={{ top: 8, right: 8, bottom: 0, left: -16 }}>
        <CartesianGrid strokeDasharray="3 3" vertical={false} />
        <XAxis dataKey="label" tick={{ fontSize: 11, fill: MUTED }} minTickGap={16} />
        <YAxis allowDecimals={false} tick={{ fontSize: 11, fill: MUTED }} />
        <Tooltip />
        <Bar dataKey="rejects" name="Rejected" fill={WARN} />
      </BarChart>
    </Figure>
  );
}

export function DurationChart({ data }: { data: OperationsOverview }) {
  const rows = data.workflows
    .filter((w) => w.p50Ms !== null)
    .map((w) => ({ name: w.name, p50: w.p50Ms, p95: w.p95Ms }));
  const slowest = rows.reduce<(typeof rows)[number] | undefined>(
    (a, r) => (!a || (r.p95 ?? 0) > (a.p95 ?? 0) ? r : a),
    undefined,
  );
  return (
    <Figure
      id="durations"
      title="Duration per workflow (p50 and p95)"
      summary={
        slowest
          ? `Slowest at p95: ${slowest.name}, ${duration(slowest.p95)}.`
          : "No finished runs in this range."
      }
    >
      <BarChart data={rows} layout="vertical" margin={{ top: 8, right: 16, bottom: 0, left: 8 }}>
        <CartesianGrid strokeDasharray="3 3" horizontal={false} />
        <XAxis
          type="number"
          tick={{ fontSize: 11, fill: MUTED }}
          tickFormatter={(v: number) => duration(v)}
        />
        <YAxis type="category" dataKey="name" width={120} tick={{ fontSize: 11, fill: MUTED }} />
        <Tooltip formatter={(v) => duration(Number(v))} />
        <Legend />
        <Bar dataKey="p50" name="p50" fill={ACCENT} />
        <Bar dataKey="p95" name="p95" fill={WARN} />
      </BarChart>
    </Figure>
  );
}
