import {
  applyOutcome,
  initialState,
  markStarted,
  type RunState,
  type RunVerdict,
  type StepOutcome,
  type TemplateContext,
  type WorkflowGraph,
} from "@/lib/workflow";
import { executeStep } from "./execute-step";
import type { RunEnded } from "@/server/services/step-execution/finish-bodies";
import { planRound, stepContext } from "./planning";
import { sid, type DriverEffects, type DriverEnv, type DriverNode, type Scope } from "./types";
import {
  planWave,
  verdictWithAbort,
  waveBody,
  waveNeedsStep,
  type WaveInput,
  type WaveMemo,
} from "./waves";

export interface GraphResult {
  verdict: RunVerdict;
  state: RunState;
  /** Steps still in flight when the graph halted (their durable work may still finish). */
  leftInFlight: number;
  /** The run's end, already written with the wave that decided it (`topLevel` graphs only). */
  ended?: RunEnded;
}

export interface RunGraphOptions {
  /** The run's own graph (not a loop body): a wave that ends it also finishes the run. */
  topLevel?: boolean;
  /** The first wave, already run and recorded by the plan step (`firstWaveBody`). */
  firstWave?: WaveMemo;
}

type Node = DriverNode;

/**
 * Production effects: each step runs through durable steps (`executeStep`), and each planning
 * round's skips (engine version 1) or each wave (version 2) is recorded in one durable step whose
 * id is stable across replays.
 */
export const durableEffects: DriverEffects = {
  // A call, not a reference: execute-step imports this module back (loops), so the binding may
  // not be initialized yet when this object is built.
  execute: (env, scope, node, ctx, opts) => executeStep(env, scope, node, ctx, opts),
  async recordSkips(env, scope, round, items) {
    await env.step.run(sid(env, `${scope.prefix || "run"}~skip#${round}`), () =>
      env.stepEffects.bodies.recordSkipsBody({
        runId: env.plan.runId,
        workspaceId: env.plan.workspaceId,
        items,
      }),
    );
  },
  async wave<T>(env: DriverEnv, scope: Scope, n: number, body: () => Promise<T>) {
    // A wave is one durable step attempt of the run: it takes a maxParallel slot, and counts as a
    // chain in flight while it runs (race-mode tag when other chains run alongside).
    await env.slots.acquire();
    env.active++;
    try {
      return (await env.step.run(sid(env, `${scope.prefix || "run"}~wave#${n}`), body)) as T;
    } finally {
      env.active--;
      env.slots.release();
    }
  },
};

/**
 * Drives one graph (the workflow, or one loop iteration) with the pure state machine: starts ready
 * steps, records skips, and reacts to each step outcome in completion order — `Promise.race` over
 * the steps in flight, which the durable executor replays deterministically (the memo stack is in
 * completion order and steps are tagged `parallelMode: race`). What a step does is `env.effects`
 * (durable in production, simulated in the proposal dry run); the planning here is shared.
 * Runs whose plan says engine version 2 plan in waves (waves.ts): pure steps are evaluated and
 * recorded together, one durable step per wave; other steps run one by one as before.
 */
export async function runGraph(
  env: DriverEnv,
  graph: WorkflowGraph<Node>,
  scope: Scope,
  seed?: Record<string, StepOutcome>,
  opts: RunGraphOptions = {},
): Promise<GraphResult> {
  const effects = env.effects ?? durableEffects;
  const waves = effects.wave !== undefined && (env.plan.engineVersion ?? 1) >= 2;
  let state = seededState(graph, seed);
  const inflight = new Map<string, Promise<{ id: string; outcome: StepOutcome }>>();
  let round = 0;
  let waveNo = 0;
  let firstWave = opts.firstWave;
  for (;;) {
    let toStart: { id: string; ctx: TemplateContext; counted?: boolean }[];
    let recorded = false;
    if (waves && !env.halted) {
      const input: WaveInput = {
        state,
        attempts: env.attempts,
        abort: env.abort,
        inflight: new Set(inflight.keys()),
      };
      // Planned without evaluating first: a wave with nothing to evaluate or record needs no step.
      let wave = await planWave(env, graph, scope, input, async () => undefined);
      let memo: WaveMemo | undefined;
      if (firstWave || waveNeedsStep(wave)) {
        memo =
          firstWave ??
          (await effects.wave!(env, scope, ++waveNo, () =>
            waveBody(
              env,
              graph,
              scope,
              input,
              opts.topLevel ? { leftInFlight: inflight.size + env.danglingWaits } : undefined,
            ),
          ));
        firstWave = undefined;
        const outcomes = new Map(memo.outcomes);
        wave = await planWave(env, graph, scope, input, async (s) => outcomes.get(s.id));
        if (wave.missing)
          throw new Error(
            `Wave ${waveNo} of ${scope.prefix || "the run"} planned differently from its recorded outcomes (a bug)`,
          );
      }
      state = wave.state;
      env.attempts += wave.attempts - input.attempts;
      env.abort ??= wave.abort;
      if (wave.finished) {
        if (inflight.size) effects.abandon?.(env, scope, [...inflight.keys()]);
        return {
          verdict: verdictWithAbort(wave.finished, env.abort),
          state,
          leftInFlight: inflight.size,
          ...(memo?.ended ? { ended: memo.ended } : {}),
        };
      }
      toStart = wave.launches.map((l) => ({ id: l.id, ctx: l.ctx, counted: true }));
    } else {
      const r = planRound(env, graph, state, scope, env.abort, (id) => inflight.has(id));
      state = r.state;
      if (r.records.length && !env.halted) {
        round++;
        await effects.recordSkips(env, scope, round, r.records);
      }
      recorded = r.records.length > 0;
      if (r.finished) {
        if (inflight.size) effects.abandon?.(env, scope, [...inflight.keys()]);
        return {
          verdict: verdictWithAbort(r.finished, env.abort),
          state,
          leftInFlight: inflight.size,
        };
      }
      if (r.whenSkipped) continue; // re-plan: skipped steps may unblock or skip others
      toStart = r.toStart.map((id) => {
        state = markStarted(state, id);
        return { id, ctx: stepContext(env, graph, state, scope, id) };
      });
    }

    // Count the new chains before creating any durable step, so each sees whether it has company.
    env.active += toStart.length;
    for (const s of toStart) {
      const node = graph.nodes.get(s.id)!.step;
      inflight.set(
        s.id,
        effects
          .execute(env, scope, node, s.ctx, s.counted ? { counted: true } : undefined)
          .then((outcome) => ({ id: s.id, outcome })),
      );
    }
    if (inflight.size === 0) {
      if (toStart.length === 0 && !recorded) {
        throw new Error(
          `The run made no progress (${scope.prefix || "top level"}): a bug in the scheduler`,
        );
      }
      continue;
    }
    const done = await Promise.race(inflight.values());
    inflight.delete(done.id);
    // The chain ended: a step that runs alone afterwards is no longer tagged race-mode (one
    // inline SDK request instead of two and a queue trip). Replays reach this point in the same
    // order (the memo stack is in completion order), so the tags are the same on every replay.
    env.active--;
    state = applyOutcome(state, done.id, done.outcome);
  }
}

/** The graph's initial state with a rerun's reused outcomes applied. */
function seededState(graph: WorkflowGraph<Node>, seed?: Record<string, StepOutcome>): RunState {
  let state = initialState(graph);
  for (const [id, outcome] of Object.entries(seed ?? {})) {
    if (!graph.nodes.has(id) || outcome.kind === "cancelled") continue;
    state =
      outcome.kind === "skipped"
        ? applyOutcome(state, id, outcome)
        : applyOutcome(markStarted(state, id), id, outcome);
  }
  return state;
}

/**
 * The body of the plan step's share of the run (engine version 2): the top-level graph's first
 * wave, recorded — and if it ends the run, the run finished — before the plan step's result is
 * memoized. Undefined when the run starts with nothing to evaluate or record.
 */
export async function firstWaveBody(
  env: DriverEnv,
  graph: WorkflowGraph<Node>,
  seed?: Record<string, StepOutcome>,
): Promise<WaveMemo | undefined> {
  const scope: Scope = { prefix: "" };
  const input: WaveInput = {
    state: seededState(graph, seed),
    attempts: env.attempts,
    abort: env.abort,
    inflight: new Set(),
  };
  if (!waveNeedsStep(await planWave(env, graph, scope, input, async () => undefined)))
    return undefined;
  return waveBody(env, graph, scope, input, { leftInFlight: env.danglingWaits });
}
