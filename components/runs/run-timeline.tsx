"use client";
import { useMemo } from "react";
import { formatDuration, statusTone } from "./format";
import styles from "./run-timeline.module.css";
import {
  barLabel,
  layoutTimeline,
  type TimelineAttempt,
  type TimelineBar,
} from "./timeline-layout";

/**
 * The waterfall: one bar per step attempt on a shared time axis — the derived queue wait
 * (hatched), then the attempt itself in its status colour with its status in words. Live while
 * the run is going (unfinished attempts end at `now`).
 */
export function RunTimeline({
  attempts,
  edges,
  runStartedAt,
  now,
  selected,
  onSelect,
}: {
  attempts: readonly TimelineAttempt[];
  edges?: readonly { from: string; to: string }[];
  runStartedAt: Date | string | null;
  now: number | null;
  selected: string | null;
  onSelect: (path: string) => void;
}) {
  const t = useMemo(
    () => layoutTimeline({ attempts, edges, runStartedAt, now }),
    [attempts, edges, runStartedAt, now],
  );
  return (
    <section className="card" aria-labelledby="waterfall-h">
      <div className="card-head">
        <h2 id="waterfall-h">Timeline</h2>
        <span
          className="small muted"
          title="Queue wait is derived: from when the upstream steps (or the previous attempt, or the run) finished to when the attempt started"
        >
          Hatched: waiting to start · bar: running
        </span>
      </div>
      {t.rows.length === 0 ? (
        <div className="card-body muted">No step has started yet.</div>
      ) : (
        <div className={`card-body ${styles.timeline}`}>
          <div className={styles.axis} aria-hidden>
            <span />
            <div className={styles.ticks}>
              {t.ticks.map((k) => (
                <span key={k.at} style={{ left: `${k.at}%` }} className={styles.tick}>
                  {k.offsetMs === 0 ? "0" : `+${formatDuration(k.offsetMs)}`}
                </span>
              ))}
            </div>
          </div>
          <ol className={styles.rows} aria-label="Waterfall timeline">
            {t.rows.map((row) => (
              <li key={row.path} className={styles.row} aria-label={row.path}>
                <button
                  type="button"
                  className={`btn-link mono small ${styles.name}`}
                  aria-pressed={selected === row.path}
                  onClick={() => onSelect(row.path)}
                  title={row.path}
                >
                  {row.path}
                </button>
                <ol className={styles.track} aria-label={`${row.path} attempts`}>
                  {row.bars.map((b) => (
                    <Bar key={b.id} bar={b} />
                  ))}
                </ol>
              </li>
            ))}
          </ol>
        </div>
      )}
    </section>
  );
}

function Bar({ bar: b }: { bar: TimelineBar }) {
  const label = barLabel(b);
  const detail = `${label}; waited ${formatDuration(b.queueMs)} (from ${b.readyFrom}), ran ${formatDuration(b.durationMs)}`;
  const anchorEnd = b.left > 60;
  return (
    <li className={styles.attempt} aria-label={detail} title={detail} data-testid="timeline-bar">
      {b.queueMs > 0 ? (
        <span
          className={styles.queue}
          style={{ left: `${b.queueLeft}%`, width: `${b.left - b.queueLeft}%` }}
        />
      ) : null}
      <span
        className={`${statusTone(b.status)} ${styles.bar} ${b.isRunning ? styles.live : ""}`}
        style={{ left: `${b.left}%`, width: `${b.width}%` }}
      />
      <span
        className={`small ${styles.text}`}
        style={
          anchorEnd
            ? { right: `${100 - b.left - b.width}%`, textAlign: "right" }
            : { left: `${b.left}%` }
        }
      >
        #{b.attempt} {b.isRunning ? `${b.status}…` : b.status} · {formatDuration(b.durationMs)}
      </span>
    </li>
  );
}
