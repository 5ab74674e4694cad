import { sid, type DriverEnv } from "./types";

/**
 * A durable wait for an event, raced with a durable check for an outcome recorded before the wait
 * was registered (a decision, a completed task, an event already sent). Resolves with whichever
 * answers first: the event (null on timeout) or the check's finding. Step ids stay
 * `<path>@1~wait` and `<path>@1~<checkName>`, so recorded runs replay unchanged.
 */
export async function raceWait(
  env: DriverEnv,
  path: string,
  wait: { event: string; if: string; timeout: Date },
  checkName: string,
  check: () => Promise<unknown>,
): Promise<unknown> {
  const waiting = env.step.waitForEvent(sid(env, `${path}@1~wait`, true), wait);
  const checked = env.step.run(sid(env, `${path}@1~${checkName}`, true), check);
  return Promise.race<unknown>([
    waiting,
    checked.then((found): unknown => {
      if (!found) return waiting;
      env.danglingWaits++; // the durable wait stays registered until its timeout: stop it at the end
      return found;
    }),
  ]);
}
