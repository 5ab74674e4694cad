/**
 * The layering in eslint.config.mjs is a rule, not a wish: each case lints a one-line file at a
 * path inside a layer and expects the forbidden import to fail (and the allowed one to pass).
 */
import path from "node:path";
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: ROOT });
});

/** Messages of the import rule for `source` linted as if it were the file at `file`. */
async function importErrors(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${source}\nexport { x };\n`, {
    filePath: path.join(ROOT, file),
  });
  return result!.messages.filter((m) => m.ruleId === "no-restricted-imports").map((m) => m.message);
}

describe("lint enforces the engine's layers", () => {
  it("bans services from importing the run driver", async () => {
    const errors = await importErrors(
      "server/services/runs/fixture.ts",
      'import { runGraph as x } from "@/inngest/run-driver/run-graph";',
    );
    expect(errors).toEqual([expect.stringContaining("services sit below the run driver")]);
  });

  it("bans services from importing Inngest functions", async () => {
    const errors = await importErrors(
      "server/services/runs/fixture.ts",
      'import { functions as x } from "@/inngest/functions";',
    );
    expect(errors).toEqual([expect.stringContaining("services are called by transports")]);
  });

  it("lets services use step execution", async () => {
    const errors = await importErrors(
      "server/services/recordings/fixture.ts",
      'import { runActionAttempt as x } from "@/server/services/step-execution/action-attempt";',
    );
    expect(errors).toEqual([]);
  });

  it("keeps the run driver to orchestration: server/ only as types", async () => {
    const outside = await importErrors(
      "inngest/run-driver/fixture.ts",
      'import { recordWave as x } from "@/server/services/run-state/wave-records";',
    );
    expect(outside).toEqual([expect.stringContaining("imports server/ as types only")]);
    const db = await importErrors(
      "inngest/run-driver/fixture.ts",
      'import { db as x } from "@/db";',
    );
    expect(db).toEqual([expect.stringContaining("imports server/ as types only")]);
    // Step execution too: the driver calls it through env.stepEffects, never by import.
    const effects = await importErrors(
      "inngest/run-driver/fixture.ts",
      'import { recordWaveBody as x } from "@/server/services/step-execution/record-bodies";',
    );
    expect(effects).toEqual([expect.stringContaining("through env.stepEffects")]);
    const relative = await importErrors(
      "inngest/run-driver/fixture.ts",
      'import { runActionAttempt as x } from "../../server/services/step-execution/action-attempt";',
    );
    expect(relative).toEqual([expect.stringContaining("through env.stepEffects")]);
    // Row and plan shapes and step execution's signatures are data: a type import is allowed.
    const types = await importErrors(
      "inngest/run-driver/fixture.ts",
      'import type { AttemptKey as x } from "@/server/services/run-state/step-records";',
    );
    expect(types).toEqual([]);
    const signatures = await importErrors(
      "inngest/run-driver/fixture.ts",
      'import type { AttemptOutcome as x } from "@/server/services/step-execution/action-attempt";',
    );
    expect(signatures).toEqual([]);
  });

  it("lets the functions that start the driver build its step effects", async () => {
    const errors = await importErrors(
      "inngest/functions/fixture.ts",
      'import { recordWaveBody as x } from "@/server/services/step-execution/record-bodies";',
    );
    expect(errors).toEqual([]);
  });

  it("bans the run driver from importing the functions that call it", async () => {
    const errors = await importErrors(
      "inngest/run-driver/fixture.ts",
      'import { functions as x } from "@/inngest/functions";',
    );
    expect(errors).toEqual([expect.stringContaining("called by inngest/functions")]);
  });
});
