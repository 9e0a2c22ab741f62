// What every browser test asks of a page it shows: axe-core finds no serious or critical
// violation, and (where axe cannot judge, as for right-to-left scripts, or for a page's own dark
// palette) every visible text reads at WCAG AA contrast against its effective background.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { expect } from "vitest";

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * What runs in the page is plain JavaScript text: testkit is compiled for Node, without the
 * DOM's types (a `lib="dom"` reference would change the types of every project compiled with it).
 */
const RUN_AXE = `(async () => (await window.axe.run(document, { resultTypes: ["violations"] })).violations)()`;

/** Every visible text whose contrast with its effective background is below WCAG AA, as "text: ratio". */
const LOW_CONTRAST_TEXTS = `(() => {
  const parse = (color) => (color.match(/[\\d.]+/g) || []).map(Number);
  const luminance = ([r, g, b]) => {
    const channel = (value) => {
      const c = value / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  };
  const background = (element) => {
    for (let node = element; node; node = node.parentElement) {
      const color = parse(getComputedStyle(node).backgroundColor);
      if (color.length === 3 || (color.length === 4 && color[3] > 0)) return color.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const element = node.parentElement;
    if (!element || !node.textContent.trim() || element.closest(".visually-hidden")) continue;
    const style = getComputedStyle(element);
    if (style.visibility === "hidden" || element.getClientRects().length === 0) continue;
    const [l1, l2] = [luminance(parse(style.color)), luminance(background(element))].sort((x, y) => y - x);
    const ratio = (l1 + 0.05) / (l2 + 0.05);
    const large = parseFloat(style.fontSize) >= 24 || (parseFloat(style.fontSize) >= 18.66 && Number(style.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5)) found.push(node.textContent.trim().slice(0, 30) + ": " + ratio.toFixed(2));
  }
  return found;
})()`;

/** axe-core in the page: no serious or critical violation. */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  // Evaluated through the DevTools protocol: the pages' CSP (rightly) refuses an injected <script>.
  if (!(await page.evaluate("'axe' in window"))) await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(RUN_AXE)) as Violation[];
  const bad = violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
  expect(bad.map((violation) => `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`), `axe on ${what}`).toEqual([]);
}

/** WCAG contrast of every visible text against its effective background: 4.5:1, 3:1 for large text. */
export async function expectTextContrast(page: Page, what: string): Promise<void> {
  const failures = (await page.evaluate(LOW_CONTRAST_TEXTS)) as string[];
  expect(failures, `text contrast on ${what}`).toEqual([]);
}
