import { describe, expect, it } from "vitest";
import { slugify } from "./slug";

describe("slugify", () => {
  it.each([
    ["Déploiement", "deploiement"],
    ["Straße über Ørsted", "strasse-uber-orsted"],
    ["Привет мир", "privet-mir"],
    ["  Deploy -- to PROD!! ", "deploy-to-prod"],
    ["日本語", "workflow"],
    ["", "workflow"],
  ])("%j → %j", (name, slug) => {
    expect(slugify(name)).toBe(slug);
  });

  it("stays within 60 characters and never ends with a dash", () => {
    const slug = slugify(`${"a".repeat(59)} b`);
    expect(slug.length).toBeLessThanOrEqual(60);
    expect(slug).not.toMatch(/-$/);
  });
});
