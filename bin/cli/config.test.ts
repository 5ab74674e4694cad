import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { configPath, normalizeUrl, readConfig, resolveConnection, writeConfig } from "./config";

describe("config", () => {
  it("lives under XDG_CONFIG_HOME, else ~/.config", () => {
    expect(configPath({ XDG_CONFIG_HOME: "/x" })).toBe("/x/sluice/config.json");
    expect(configPath({})).toBe(path.join(os.homedir(), ".config/sluice/config.json"));
  });

  it("is written 0600 (also over a looser existing file) and read back", () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "sluice-cfg-")), "s/config.json");
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(file, "{}", { mode: 0o644 });
    writeConfig({ url: "http://h", token: "slu_a" }, file);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(readConfig(file)).toEqual({ url: "http://h", token: "slu_a" });
    expect(readConfig(path.join(path.dirname(file), "none.json"))).toBeNull();
  });

  it("SLUICE_URL / SLUICE_TOKEN override the stored values field by field", () => {
    const stored = { url: "http://stored", token: "slu_stored" };
    expect(resolveConnection({ SLUICE_TOKEN: "slu_env" }, stored)).toEqual({
      url: "http://stored",
      token: "slu_env",
    });
    expect(resolveConnection({}, null)).toEqual({ url: null, token: null });
  });

  it("normalizes the URL and refuses non-http ones", () => {
    expect(normalizeUrl("http://localhost:3000/")).toBe("http://localhost:3000");
    expect(() => normalizeUrl("ftp://x")).toThrow(/http\(s\)/);
    expect(() => normalizeUrl("nope")).toThrow(/not a URL/);
  });
});
