import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

/** Fails on any critical or serious WCAG 2.1 AA (and best-practice) violation on the page, or inside `include`. */
export async function audit(page: Page, what: string, include?: string) {
  // Only violations are read, so axe reports only those (not every passing node). Legacy mode runs axe in the page
  // and its same-origin frames (the app has no other), without the blank page per scan that the default mode opens
  // to merge frame results.
  let builder = new AxeBuilder({ page })
    .options({ resultTypes: ["violations"] })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"])
    .setLegacyMode();
  if (include) builder = builder.include(include);
  // page.evaluate has no timeout of its own: a scan that never ends fails here, named, not as the test's timeout.
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`axe did not finish within 60 s: ${what}`)), 60_000);
  });
  const { violations } = await Promise.race([builder.analyze(), stalled]).finally(() => clearTimeout(timer));
  const bad = violations
    .filter((v) => v.impact === "critical" || v.impact === "serious")
    .map(
      (v) =>
        `${what}: [${v.impact}] ${v.id} — ${v.help}\n  ${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(" "))
          .join("\n  ")}`,
    );
  expect(bad, bad.join("\n")).toEqual([]);
}
