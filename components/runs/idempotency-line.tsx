/** The shape previewRerun answers per side-effecting step (server/services/runs/rerun-idempotency.ts). */
export interface IdempotencyPreview {
  key: string | null;
  sentAs: string | null;
  originalKey: string | null;
  repeatsOriginal: boolean;
  note: string;
}

/** A repeating step's idempotency key next to the original's, and what that means downstream. */
export function IdempotencyLine({ idem }: { idem: IdempotencyPreview }) {
  return (
    <div className="small muted" data-testid="rerun-idempotency">
      {idem.key ? (
        <>
          Idempotency key <span className="mono">{idem.key}</span>
          {idem.sentAs ? ` (${idem.sentAs})` : ""}
          {idem.originalKey ? (
            <>
              {" "}
              — original <span className="mono">{idem.originalKey}</span>
            </>
          ) : null}
          .{" "}
        </>
      ) : null}
      {idem.note}.
    </div>
  );
}
