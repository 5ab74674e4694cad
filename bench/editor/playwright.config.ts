import fs from "node:fs";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";

/**
 * The editor speed bench (issue 13 item 7): drives the PRODUCTION build (`npm run build` first) in
 * Chromium against a fresh embedded database, opens a 1,000-step workflow in the Graph view and
 * measures open time, JS heap, pan/zoom frame rate and add-node latency. Results are printed as
 * `BENCH {json}` lines and appended to bench/results/latest.jsonl — never asserted as timings.
 *   npm run build && npm run bench:editor
 */
const port = Number(process.env.BENCH_EDITOR_PORT ?? 3300);
const executorPort = Number(process.env.BENCH_EDITOR_EXECUTOR_PORT ?? 8588);
if (!process.env.BENCH_EDITOR_DATA_DIR) {
  fs.rmSync(path.resolve(".data-bench-editor"), { recursive: true, force: true });
  process.env.BENCH_EDITOR_DATA_DIR = path.resolve(".data-bench-editor", String(Date.now()));
}
const systemChromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) =>
  fs.existsSync(p),
);
const baseURL = `http://localhost:${port}`;

export default defineConfig({
  testDir: ".",
  testMatch: /.*\.bench\.ts/,
  outputDir: "../results/editor-test-results",
  workers: 1,
  retries: 0,
  timeout: 300_000,
  expect: { timeout: 30_000 },
  reporter: [["list"]],
  use: {
    baseURL,
    ...devices["Desktop Chrome"],
    viewport: { width: 1440, height: 900 },
    launchOptions: {
      executablePath: systemChromium,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--no-first-run",
        "--enable-precise-memory-info",
      ],
    },
  },
  webServer: {
    command: "npm start",
    url: `${baseURL}/sign-in`,
    reuseExistingServer: false,
    timeout: 120_000,
    env: {
      PORT: String(port),
      SLUICE_EXECUTOR_PORT: String(executorPort),
      SLUICE_DATA_DIR: process.env.BENCH_EDITOR_DATA_DIR,
      SLUICE_PUBLIC_URL: baseURL,
      LOG_LEVEL: "warn",
    },
  },
});
