import { AxeBuilder } from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

type Violation = Awaited<ReturnType<AxeBuilder["analyze"]>>["violations"][number];

/** One line per failing element: rule id, impact, CSS target and axe's summary of the fix. */
export function describeViolations(violations: Violation[]): string {
  return violations
    .flatMap((v) =>
      v.nodes.map(
        (n) =>
          `[${v.impact}] ${v.id} at ${JSON.stringify(n.target)}: ${v.help}\n    ${n.html.slice(0, 300)}\n    ${(
            n.failureSummary ?? ""
          ).replace(/\n/g, "\n    ")}`,
      ),
    )
    .join("\n");
}

/**
 * Runs axe-core (all of its rules: WCAG 2.x A/AA and best practices) on the page as it is now
 * and fails on any critical or serious violation, listing each one. `where` names the screen in
 * the failure message. A soft assertion: the test goes on to the next screen, so one run
 * reports every screen's violations.
 */
export async function expectNoSeriousAxeViolations(page: Page, where: string) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const serious = violations.filter((v) => v.impact === "critical" || v.impact === "serious");
  expect.soft(describeViolations(serious), `axe on ${where} (${page.url()})`).toBe("");
}

/**
 * axe does not check placeholder text; this does: every visible input or textarea with a
 * placeholder, its ::placeholder colour against the field's background (WCAG relative
 * luminance), at least 4.5:1.
 */
export async function expectReadablePlaceholders(page: Page, where: string) {
  const fields = await page.evaluate(() => {
    const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).map(Number);
    const luminance = (c: string) => {
      const [r, g, b] = rgb(c).map((v) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    return [...document.querySelectorAll<HTMLElement>("input[placeholder], textarea[placeholder]")]
      .filter((el) => el.checkVisibility() && !el.closest(".monaco-editor"))
      .map((el) => {
        const fg = getComputedStyle(el, "::placeholder").color;
        // The first opaque background from the field outwards (a transparent field shows its parent's).
        let bg = "rgb(255, 255, 255)";
        for (let n: Element | null = el; n; n = n.parentElement) {
          const c = getComputedStyle(n).backgroundColor;
          if (rgb(c)[3] !== 0) {
            bg = c;
            break;
          }
        }
        const [hi, lo] = [luminance(fg), luminance(bg)].sort((a, b) => b - a);
        return {
          field: el.getAttribute("aria-label") ?? el.getAttribute("placeholder"),
          ratio: Math.round(((hi! + 0.05) / (lo! + 0.05)) * 100) / 100,
          fg,
          bg,
        };
      });
  });
  const low = fields.filter((f) => f.ratio < 4.5);
  expect.soft(low, `placeholder contrast on ${where}: ${JSON.stringify(low)}`).toEqual([]);
}
