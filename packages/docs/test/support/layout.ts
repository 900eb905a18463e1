// What a reader sees of the layout: boxes whose content runs past them, words broken across lines.
import type { Page } from "playwright-core";

/** The two widths the pages are checked at: a desktop window and a phone held upright. */
export const WIDTHS = [
  { name: "desktop", width: 1400, height: 900 },
  { name: "phone", width: 390, height: 844 },
] as const;

/**
 * Every visible code block (`pre`) and table whose content does not fit: content wider or taller
 * than the box (scrolled or clipped), or a box that runs past its container or the window.
 * One line per offender, naming it by its first words.
 */
export function overflowingBoxes(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const viewport = document.documentElement.clientWidth;
    const found: string[] = [];
    for (const box of document.querySelectorAll<HTMLElement>("pre, table")) {
      if (box.getClientRects().length === 0) continue;
      const rect = box.getBoundingClientRect();
      let container = box.parentElement;
      while (container && getComputedStyle(container).display === "contents") {
        container = container.parentElement;
      }
      const limit = Math.min(viewport, container?.getBoundingClientRect().right ?? viewport);
      const name = `${box.tagName.toLowerCase()} "${(box.textContent ?? "").trim().replace(/\s+/g, " ").slice(0, 40)}"`;
      if (box.scrollWidth > box.clientWidth + 1)
        found.push(`${name}: content ${box.scrollWidth} px wide in a ${box.clientWidth} px box`);
      if (box.scrollHeight > box.clientHeight + 1)
        found.push(`${name}: content ${box.scrollHeight} px tall in a ${box.clientHeight} px box`);
      if (rect.right > limit + 1)
        found.push(
          `${name}: right edge at ${Math.round(rect.right)} px, its container ends at ${Math.round(limit)} px`,
        );
    }
    return found;
  });
}

/**
 * The texts of `selector`'s elements that a line break splits inside a word: where the next
 * character starts a new line although neither it nor the one before is a space, "/" or "-".
 */
export function wordsBrokenMidway(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((sel) => {
    const broken: string[] = [];
    for (const element of document.querySelectorAll(sel)) {
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent ?? "";
        const range = document.createRange();
        let previousTop: number | undefined;
        for (let i = 0; i < text.length; i++) {
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          const rect = range.getClientRects()[0];
          if (!rect) continue;
          const newLine = previousTop !== undefined && rect.top > previousTop + 2;
          if (newLine && !/[\s/-]/.test(text[i - 1] ?? " ") && !/\s/.test(text[i] ?? " ")) {
            broken.push(`"${text}" breaks between "${text.slice(0, i)}" and "${text.slice(i)}"`);
          }
          previousTop = rect.top;
        }
      }
    }
    return broken;
  }, selector);
}

/** The elements of `selector` whose text is cut off (an ellipsis or a hidden overflow). */
export function truncatedTexts(page: Page, selector: string): Promise<string[]> {
  return page.evaluate(
    (sel) =>
      [...document.querySelectorAll<HTMLElement>(sel)]
        .filter(
          (element) => element.getClientRects().length > 0 && element.scrollWidth > element.clientWidth + 1,
        )
        .map(
          (element) => `"${element.textContent}" shows ${element.clientWidth} of ${element.scrollWidth} px`,
        ),
    selector,
  );
}
