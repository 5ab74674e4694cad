import { describe, expect, it } from "vitest";
import { keysFromMaster } from "../keys";
import { createSecretCipher, SecretDecryptionError, type EncryptedSecret } from "./crypto";

const cipher = createSecretCipher(keysFromMaster("master-one-master-one-master-one-0000"));
const here = { workspaceId: "ws_a", name: "API_TOKEN" };

const flip = (b64: string, index = 0) => {
  const buf = Buffer.from(b64, "base64");
  buf[index] = buf[index]! ^ 1;
  return buf.toString("base64");
};

describe("secret cipher", () => {
  it("round-trips unicode and large values with a fresh IV each time", () => {
    const value = "päss wörd ✓ ".repeat(4000);
    const a = cipher.encrypt(value, here);
    const b = cipher.encrypt(value, here);
    expect(a.iv).not.toBe(b.iv);
    expect(a.ciphertext).not.toBe(b.ciphertext);
    expect(a.ciphertext).not.toContain("päss");
    expect(a.keyVersion).toBe(1);
    expect(cipher.decrypt(a, here)).toBe(value);
    expect(cipher.decrypt(b, here)).toBe(value);
  });

  it("detects a tampered ciphertext, IV or tag", () => {
    const enc = cipher.encrypt("hunter2-hunter2", here);
    const variants: EncryptedSecret[] = [
      { ...enc, ciphertext: flip(enc.ciphertext) },
      { ...enc, iv: flip(enc.iv) },
      { ...enc, authTag: flip(enc.authTag, 15) },
      { ...enc, authTag: "" },
    ];
    for (const v of variants) {
      expect(() => cipher.decrypt(v, here)).toThrow(SecretDecryptionError);
    }
  });

  it("refuses a row moved to another name or workspace (AAD)", () => {
    const enc = cipher.encrypt("hunter2-hunter2", here);
    expect(() => cipher.decrypt(enc, { ...here, name: "OTHER" })).toThrow(SecretDecryptionError);
    expect(() => cipher.decrypt(enc, { ...here, workspaceId: "ws_b" })).toThrow(
      /cannot be decrypted/,
    );
    // Boundary shifting between the two fields must not collide either.
    const shifted = cipher.encrypt("x-value", { workspaceId: "ws_a", name: "B_C" });
    expect(() => cipher.decrypt(shifted, { workspaceId: "ws_aB", name: "_C" })).toThrow();
  });

  it("refuses decryption under another master secret", () => {
    const enc = cipher.encrypt("hunter2-hunter2", here);
    const other = createSecretCipher(keysFromMaster("master-two-master-two-master-two-0000"));
    expect(() => other.decrypt(enc, here)).toThrow(SecretDecryptionError);
  });
});
