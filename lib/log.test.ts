import { describe, expect, it, vi } from "vitest";
import { createLogger, describeStatement, logWithRef, scrubQueryText } from "./log";

function captured(fn: () => void): string {
  const lines: string[] = [];
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    fn();
  } finally {
    spy.mockRestore();
  }
  return lines.join("");
}

const FAILED =
  'Failed query: update "secrets" set "value" = $1 where "secrets"."id" = $2\nparams: sk-live-SECRET,sec_1';

describe("logs keep SQL parameters out", () => {
  it("names a statement by verb and table and lists its fields", () => {
    expect(
      describeStatement('insert into "runs" ("id", "status") values ($1, $2) returning "id"'),
    ).toEqual({ statement: "insert runs", fields: ["id", "status"] });
    expect(describeStatement('update "secrets" set "value" = $1').statement).toBe("update secrets");
    expect(describeStatement("select 1").statement).toBe("select");
  });

  it("scrubs Drizzle's failed-query text from messages and stacks, however it arrives", () => {
    expect(scrubQueryText(`Error: ${FAILED}\n    at run (x.ts:1:1)`)).toBe(
      "Error: Failed query (update secrets)\n    at run (x.ts:1:1)",
    );
    // An error message passed on as a string (the orchestrator's failure, an outbox retry).
    const out = captured(() => createLogger().error("run failed", { err: FAILED }));
    expect(out).not.toContain("SECRET");
    expect(out).toContain("Failed query (update secrets)");
  });

  it("an error wrapping a failed query logs a reference, the statement and field names only", () => {
    const cause = Object.assign(new Error('value "sk-live-SECRET" too long'), {
      code: "22001",
      column_name: "value",
    });
    const err = Object.assign(new Error(FAILED, { cause }), {
      query: 'update "secrets" set "value" = $1 where "secrets"."id" = $2',
      params: ["sk-live-SECRET", "sec_1"],
    });
    let ref = "";
    const out = captured(() => {
      ref = logWithRef(createLogger(), "procedure failed", err, { path: "secret.update" });
    });
    expect(out).not.toContain("SECRET");
    expect(out).not.toContain("sec_1");
    const rec = JSON.parse(out);
    expect(rec).toMatchObject({
      msg: "procedure failed",
      path: "secret.update",
      ref,
      err: {
        statement: "update secrets",
        fields: ["value", "id"],
        cause: { code: "22001", column: "value" },
      },
    });
  });
});
