import { describe, expect, it } from "vitest";
import { STEP_CATALOG, STEP_TYPES } from "@/lib/workflow/catalog";
import { ICON_PATHS } from "./step-icon";

describe("step icons", () => {
  // Condition ("git-branch") and Sub-workflow ("workflow") once drew as text glyphs most fonts
  // lack, so they showed as empty boxes.
  it("draws every catalog step type's icon as SVG paths", () => {
    for (const t of STEP_TYPES) {
      const paths = ICON_PATHS[STEP_CATALOG[t].icon];
      expect(paths, `${t} (${STEP_CATALOG[t].icon})`).toBeDefined();
      for (const d of paths!) expect(d).toMatch(/^[Mm][\d.-]/);
    }
  });
});
