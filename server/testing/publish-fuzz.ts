/**
 * One fuzz case of save-draft + publish, shared by server/services/workflows/publish-fuzz.test.ts
 * and bench/definition-fuzz.ts so both check the same things: the definition is saved as a draft
 * of a new workflow and published. Allowed outcomes are a version whose hash is the definition's
 * (and which a key-shuffled copy publishes again as "unchanged"), or a domain error the transports
 * map to a 4xx: ValidationError with a path on every issue, PayloadTooLargeError. Anything else
 * is thrown as a failure. Text Postgres cannot store (NUL, lone surrogates) never reaches the
 * services: every transport refuses it first (lib/storable-text.ts), so such a case stops there.
 */
import assert from "node:assert/strict";
import { hashDefinition, validateDefinition } from "@/lib/workflow";
import { unstorableText } from "@/lib/storable-text";
import { shuffleKeys } from "@/lib/workflow/definition-fuzz.arbitraries";
import { PayloadTooLargeError, ValidationError } from "../errors";
import type { ServiceContext } from "../services/context";
import { createWorkflow } from "../services/workflows/create-workflow";
import { publishWorkflow } from "../services/workflows/publish-workflow";
import { saveDraft } from "../services/workflows/save-draft";

export type PublishFuzzOutcome = "published" | "refused" | "tooLarge" | "unstorable";

let seq = 0;

export async function publishFuzzCase(
  ctx: ServiceContext,
  definition: unknown,
  seed: number,
): Promise<PublishFuzzOutcome> {
  if (unstorableText(definition)) return "unstorable";
  const wf = await createWorkflow({ ctx, input: { name: `Fuzz ${++seq}` } });
  try {
    const saved = await saveDraft({ ctx, input: { workflowId: wf.id, definition } });
    for (const issue of saved.issues) assert.ok(Array.isArray(issue.path), issue.message);
    const first = await publishWorkflow({ ctx, input: { workflowId: wf.id } });
    assert.equal(first.status, "created");
    const validated = validateDefinition(definition);
    assert.ok(validated.ok, "published a definition the validator refuses");
    assert.equal(first.hash, hashDefinition(definition));
    await saveDraft({
      ctx,
      input: { workflowId: wf.id, definition: shuffleKeys(definition, seed) },
    });
    const again = await publishWorkflow({ ctx, input: { workflowId: wf.id } });
    assert.equal(again.status, "unchanged", "key order changed the published hash");
    assert.equal(again.hash, first.hash);
    return "published";
  } catch (e) {
    if (e instanceof ValidationError) {
      assert.ok(e.issues.length > 0, `refused without issues: ${e.message}`);
      for (const issue of e.issues) assert.ok(Array.isArray(issue.path), `no path: ${e.message}`);
      assert.equal(validateDefinition(definition).ok, false, `refused a valid one: ${e.message}`);
      return "refused";
    }
    if (e instanceof PayloadTooLargeError) return "tooLarge";
    throw e;
  }
}
