/**
 * Editor speed on a 1,000-step workflow (issue 13 item 7), in the production build:
 * - open: navigation start → the canvas shows its first nodes (browser clock), and → the canvas
 *   is settled (node count stable for 300 ms);
 * - heap: JS heap used after a forced GC, once the canvas is settled;
 * - pan/zoom: frames per second while dragging the pane and zooming with the wheel;
 * - add node: a palette entry activated (a node selected) → the new node is in the DOM.
 * Each measure is repeated (BENCH_EDITOR_RUNS, default 5) and reported as median / p90 next to
 * its goal. Timings are reported, never asserted.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { makeLargeDefinition } from "../../lib/workflow/fixtures";

const RUNS = Number(process.env.BENCH_EDITOR_RUNS ?? 5);
const STEPS = Number(process.env.BENCH_EDITOR_STEPS ?? 1000);
const NODE = ".react-flow__node";

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
function p90(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(0.9 * s.length) - 1)]!;
}
const round = (x: number) => Math.round(x * 10) / 10;

function report(name: string, data: Record<string, unknown>) {
  const line = JSON.stringify({ name, ...data, machine: machine() });
  console.log(`BENCH ${line}`);
  const out = path.resolve("bench/results/latest.jsonl");
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.appendFileSync(out, `${line}\n`);
}

function machine() {
  return { cpus: os.cpus().length, memGiB: Math.round(os.totalmem() / 2 ** 30) };
}

async function trpc<T>(page: Page, pathName: string, input: unknown): Promise<T> {
  const res = await page.request.post(`/api/trpc/${pathName}`, {
    data: { json: input },
    headers: { "content-type": "application/json" },
  });
  const body = (await res.json()) as { result?: { data?: { json?: T } }; error?: unknown };
  expect(res.ok(), JSON.stringify(body.error ?? body)).toBe(true);
  return body.result!.data!.json as T;
}

/** Waits until the node count has not changed for `quietMs`; returns the browser clock then. */
async function settled(page: Page, quietMs = 300): Promise<number> {
  return page.evaluate(
    ({ selector, quietMs }) =>
      new Promise<number>((resolve) => {
        let last = document.querySelectorAll(selector).length;
        let since = performance.now();
        const tick = () => {
          const n = document.querySelectorAll(selector).length;
          if (n !== last) {
            last = n;
            since = performance.now();
          }
          if (n > 0 && performance.now() - since >= quietMs) resolve(since);
          else requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      }),
    { selector: NODE, quietMs },
  );
}

test(`the Graph view with ${STEPS} steps`, async ({ page }) => {
  // A fresh database: the first visitor signs up and owns the workspace.
  await page.goto("/");
  await page.getByLabel("Your name").fill("Bench Owner");
  await page.getByLabel("Email").fill("bench@example.com");
  await page.getByLabel("Password").fill("bench-password-1");
  await page.getByLabel("Workspace name").fill("Bench");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page).toHaveURL(/\/workflows/);

  const definition = { ...makeLargeDefinition(STEPS), name: "Editor bench" };
  const wf = await trpc<{ id: string }>(page, "workflow.create", { name: definition.name });
  await trpc(page, "workflow.saveDraft", { workflowId: wf.id, definition });
  const url = `/workflows/${wf.id}/edit?view=graph`;

  const firstNodes: number[] = [];
  const settledAt: number[] = [];
  const heapMb: number[] = [];
  const fps: number[] = [];
  const addMs: number[] = [];
  const nodeCounts: number[] = [];
  const cdp = await page.context().newCDPSession(page);

  for (let run = 0; run < RUNS + 1; run++) {
    await page.goto("about:blank");
    await page.goto(url);
    const first = await page.evaluate(
      (selector) =>
        new Promise<number>((resolve) => {
          const check = () =>
            document.querySelector(selector)
              ? resolve(performance.now())
              : requestAnimationFrame(check);
          check();
        }),
      NODE,
    );
    const calm = await settled(page);
    await cdp.send("HeapProfiler.collectGarbage");
    const heap = (await cdp.send("Runtime.getHeapUsage")) as { usedSize: number };

    // Pan and zoom for ~2 s while counting animation frames.
    const pane = page.locator(".react-flow__pane");
    const box = (await pane.boundingBox())!;
    await page.evaluate(() => {
      const w = window as unknown as { __frames: number; __counting: boolean };
      w.__frames = 0;
      w.__counting = true;
      const tick = () => {
        if (!w.__counting) return;
        w.__frames++;
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    const t0 = Date.now();
    const cx = box.x + box.width / 2;
    const cy = box.y + box.height / 2;
    await page.mouse.move(cx, cy);
    await page.mouse.down();
    for (let i = 0; i < 40; i++) await page.mouse.move(cx - i * 12, cy - i * 6);
    await page.mouse.up();
    for (let i = 0; i < 20; i++) {
      await page.mouse.wheel(0, i % 2 ? 120 : -120);
    }
    const frames = await page.evaluate(() => {
      const w = window as unknown as { __frames: number; __counting: boolean };
      w.__counting = false;
      return w.__frames;
    });
    const seconds = (Date.now() - t0) / 1000;

    // Add a node: select one, then activate the palette's Transform entry (what Enter does).
    await page.locator(".react-flow__controls-fitview").click();
    await page.locator(NODE).first().click();
    const entry = page.getByRole("button", { name: "Add Transform" });
    await entry.focus();
    const added = await entry.evaluate(
      (el, selector) =>
        new Promise<number>((resolve) => {
          const before = document.querySelectorAll(selector).length;
          const start = performance.now();
          const mo = new MutationObserver(() => {
            if (document.querySelectorAll(selector).length > before) {
              mo.disconnect();
              resolve(performance.now() - start);
            }
          });
          mo.observe(document.body, { childList: true, subtree: true });
          (el as HTMLButtonElement).click();
        }),
      NODE,
    );
    if (process.env.BENCH_EDITOR_PROFILE && run === RUNS) {
      // A CPU profile of one more add, summarised by self time (where the add spends its time).
      await cdp.send("Profiler.enable");
      await cdp.send("Profiler.start");
      await entry.click();
      await page.waitForTimeout(500);
      const { profile } = (await cdp.send("Profiler.stop")) as {
        profile: {
          nodes: {
            id: number;
            callFrame: { functionName: string; url: string };
            hitCount?: number;
          }[];
          samples: number[];
          timeDeltas: number[];
        };
      };
      const self = new Map<number, number>();
      profile.samples.forEach((id, i) =>
        self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)),
      );
      const byName = new Map<string, number>();
      for (const n of profile.nodes) {
        const key = `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.split("/").pop()}`;
        byName.set(key, (byName.get(key) ?? 0) + (self.get(n.id) ?? 0) / 1000);
      }
      const top = [...byName].sort((a, b) => b[1] - a[1]).slice(0, 25);
      console.log(top.map(([k, ms]) => `${ms.toFixed(1).padStart(8)} ms  ${k}`).join("\n"));
    }
    nodeCounts.push(await page.locator(NODE).count());
    if (run === 0) continue; // warm-up: the first open compiles and caches
    firstNodes.push(first);
    settledAt.push(calm);
    heapMb.push(heap.usedSize / 2 ** 20);
    fps.push(frames / seconds);
    addMs.push(added);
  }

  const summary = (xs: number[]) => ({ median: round(median(xs)), p90: round(p90(xs)) });
  report(`editor: open ${STEPS}-step workflow in the Graph view (first nodes)`, {
    ms: summary(firstNodes),
    settledMs: summary(settledAt),
    nodesInDom: Math.max(...nodeCounts),
    runs: RUNS,
    goalMs: 1500,
  });
  report(`editor: JS heap after opening ${STEPS} steps`, {
    mb: summary(heapMb),
    runs: RUNS,
    goalMb: 250,
  });
  report(`editor: pan/zoom frame rate with ${STEPS} steps`, {
    fps: summary(fps),
    runs: RUNS,
    goalFps: 50,
  });
  report(`editor: add a node to ${STEPS} steps (Enter in the palette → node in the DOM)`, {
    ms: summary(addMs),
    runs: RUNS,
    goalMs: 100,
  });
});
