"use client";
import { CopyButton } from "@/components/ui/copy-button";
import styles from "./two-factor.module.css";

/** Ten fresh recovery codes, shown once, with copy and download (a local file, no server). */
export function TwoFactorRecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const text = codes.join("\n") + "\n";
  return (
    <div className="stack" role="region" aria-labelledby="recovery-codes-h">
      <h3 id="recovery-codes-h">Your recovery codes</h3>
      <p className="muted">
        Each code signs you in once if you lose your authenticator. Save them somewhere safe now:
        they will not be shown again.
      </p>
      <ul className={styles.codes} aria-label="Recovery codes">
        {codes.map((c) => (
          <li key={c}>{c}</li>
        ))}
      </ul>
      <div className={styles.actions}>
        <CopyButton value={text} label="Copy codes" />
        <a
          className="btn btn-sm"
          download="sluice-recovery-codes.txt"
          href={`data:text/plain;charset=utf-8,${encodeURIComponent(text)}`}
        >
          Download
        </a>
        <button type="button" className="btn btn-primary btn-sm" onClick={onDone}>
          I have saved my codes
        </button>
      </div>
    </div>
  );
}
