import "server-only";
import { createHash, hkdfSync, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/**
 * Keys derived from one master secret (SLUICE_SECRET, or a random one generated into the data
 * folder on first start for the single-machine default). Each purpose gets its own HKDF key so a
 * leak of one never exposes another.
 */
export type KeyPurpose =
  "session" | "resume-token" | "secret-encryption" | "webhook" | "invitation";

export interface Keys {
  derive(purpose: KeyPurpose): Buffer;
}

export function keysFromMaster(master: string): Keys {
  const cache = new Map<KeyPurpose, Buffer>();
  return {
    derive(purpose) {
      let k = cache.get(purpose);
      if (!k) {
        k = Buffer.from(hkdfSync("sha256", Buffer.from(master, "utf8"), "sluice", purpose, 32));
        cache.set(purpose, k);
      }
      return k;
    },
  };
}

/** Reads `<dataDir>/master.key`, creating it (mode 0600) on first start. */
export function loadOrCreateMasterSecret(dataDir: string): string {
  const file = path.resolve(dataDir, "master.key");
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const secret = randomBytes(48).toString("base64url");
  try {
    fs.writeFileSync(file, secret + "\n", { mode: 0o600, flag: "wx" });
    return secret;
  } catch (e) {
    // Another process won the race: use its secret.
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return fs.readFileSync(file, "utf8").trim();
    throw e;
  }
}

export function sha256Hex(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("hex");
}
