import { describe, expect, it } from "vitest";
import { STEP_CATALOG, STEP_TYPES } from "@/lib/workflow/catalog";
import { STEP_ICONS } from "./step-icon";

describe("step icons", () => {
  // Condition ("git-branch") and Sub-workflow ("workflow") once drew as text glyphs most fonts
  // lack, so they showed as empty boxes; every catalog icon name must map to a lucide icon.
  it("maps every catalog step type's icon to a lucide component", () => {
    for (const t of STEP_TYPES) {
      const Icon = STEP_ICONS[STEP_CATALOG[t].icon];
      expect(Icon, `${t} (${STEP_CATALOG[t].icon})`).toBeDefined();
      expect(Icon!.displayName ?? "", t).not.toBe("");
    }
  });
});
