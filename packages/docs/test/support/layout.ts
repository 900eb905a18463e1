// What a reader sees of the layout: boxes whose content runs past them, words broken across lines,
// table cells cut off or hidden under a floating button, a page wider than the screen.
import type { Page } from "playwright-core";

/** The two widths the pages are checked at: a desktop window and a phone held upright. */
export const WIDTHS = [
  { name: "desktop", width: 1400, height: 900 },
  { name: "phone", width: 390, height: 844 },
] as const;

/**
 * Every visible code block (`pre`) and table whose content a reader cannot see whole: content
 * taller than the box (cut at a maximum height), content wider than a box that does not scroll
 * sideways (clipped), or a box that runs past its container or the window. A box that scrolls
 * sideways shows all of its lines, each unbroken, and is fine. One line per offender, named by its
 * first words.
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
      if (box.scrollWidth > box.clientWidth + 1 && !/(auto|scroll)/.test(getComputedStyle(box).overflowX))
        found.push(
          `${name}: content ${box.scrollWidth} px wide in a ${box.clientWidth} px box that does not scroll`,
        );
      if (box.scrollHeight > box.clientHeight + 1)
        found.push(`${name}: content ${box.scrollHeight} px tall in a ${box.clientHeight} px box`);
      let scrolled = false;
      for (let up = box.parentElement; up && up !== document.body; up = up.parentElement)
        if (/(auto|scroll)/.test(getComputedStyle(up).overflowX)) scrolled = true;
      if (!scrolled && rect.right > limit + 1)
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

/**
 * Every word of the page's visible text that a line break splits: a run of letters, digits and
 * underscores (`quoteOrderQty`, `MARKET`, `ticker_price_change_statistics24hr`) whose characters
 * start on two lines. A break between a word and punctuation ("/api/" + "v3", a pattern broken
 * before "(") is a break a reader expects and is not reported. One line per broken word, with the
 * text it is in.
 */
export function wordsSplitAcrossLines(page: Page, root = "body"): Promise<string[]> {
  return page.evaluate((rootSelector) => {
    const found: string[] = [];
    const start = document.querySelector(rootSelector);
    if (!start) return [`no element matches ${rootSelector}`];
    const range = document.createRange();
    // How many lines the characters from..to of a text node are on (0 when not rendered).
    const linesOf = (node: Text, from: number, to: number): number => {
      range.setStart(node, from);
      range.setEnd(node, to);
      const rects = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
      const first = rects[0];
      return first ? rects.filter((r) => Math.abs(r.top - first.top) > first.height / 2).length + 1 : 0;
    };
    const walker = document.createTreeWalker(start, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
      const text = node.data;
      // Only a text that spans more than one line can have a word broken.
      if (!/[\p{L}\p{N}_]{2}/u.test(text) || linesOf(node, 0, text.length) < 2) continue;
      for (const word of text.matchAll(/[\p{L}\p{N}_]{2,}/gu)) {
        const at = word.index ?? 0;
        if (linesOf(node, at, at + word[0].length) > 1) {
          const context = text.trim().replace(/\s+/g, " ").slice(0, 60);
          found.push(`"${word[0]}" is broken across lines (in "${context}")`);
        }
      }
    }
    return found;
  }, root);
}

/**
 * Every visible table cell whose content a reader cannot see whole: cut off by the cell or by a
 * box around it that hides its overflow; past the right edge of the screen with no box around it
 * that scrolls sideways; or under an element that floats over the page (position: fixed, such as a
 * menu button), which every row passes under as the page scrolls, so a cell that overlaps its
 * columns is covered at some point. One line per cell, naming the table by its first words.
 */
export function clippedOrCoveredCells(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const viewport = document.documentElement.clientWidth;
    const floating = [...document.querySelectorAll<HTMLElement>("body *")]
      .filter((e) => getComputedStyle(e).position === "fixed" && e.getClientRects().length > 0)
      .map((e) => ({ element: e, rect: e.getBoundingClientRect() }))
      .filter(({ rect }) => rect.width > 0 && rect.height > 0 && rect.width < viewport / 2);
    const scrollsSideways = (e: Element) => /(auto|scroll)/.test(getComputedStyle(e).overflowX);
    const hides = (e: Element) => /(hidden|clip)/.test(getComputedStyle(e).overflowX);
    for (const cell of document.querySelectorAll<HTMLElement>("td, th")) {
      if (cell.getClientRects().length === 0 || (cell.textContent ?? "").trim() === "") continue;
      if (cell.closest("[aria-hidden='true']") || getComputedStyle(cell).visibility === "hidden") continue;
      const table = cell.closest("table");
      const name = `cell "${(cell.textContent ?? "").trim().replace(/\s+/g, " ").slice(0, 30)}" of table "${(table?.textContent ?? "").trim().replace(/\s+/g, " ").slice(0, 30)}"`;
      const rect = cell.getBoundingClientRect();
      if (cell.scrollWidth > cell.clientWidth + 1 && hides(cell))
        found.push(`${name}: content ${cell.scrollWidth} px wide, cut at ${cell.clientWidth} px`);
      let scroller: Element | null = null;
      let visuallyHidden = false;
      for (let up = cell.parentElement; up && up !== document.body; up = up.parentElement) {
        if (scrollsSideways(up)) {
          scroller = up;
          break;
        }
        const box = up.getBoundingClientRect();
        // A header kept for screen readers only (a 1 px box that hides the rest) is not shown.
        if (hides(up) && (box.width <= 1 || box.height <= 1)) {
          visuallyHidden = true;
          break;
        }
        if (hides(up) && rect.right > box.right + 1) {
          found.push(`${name}: cut off by a box that hides what does not fit`);
          break;
        }
      }
      if (visuallyHidden) continue;
      if (!scroller && rect.right > viewport + 1)
        found.push(
          `${name}: its right edge at ${Math.round(rect.right)} px is past the screen (${viewport} px), and nothing scrolls`,
        );
      // What shows of the cell: inside the box that scrolls it, if any.
      const shown = scroller?.getBoundingClientRect();
      const left = Math.max(rect.left, shown?.left ?? rect.left);
      const right = Math.min(rect.right, shown?.right ?? rect.right);
      for (const { element, rect: over } of floating) {
        if (element.contains(cell)) continue;
        if (left < over.right && right > over.left)
          found.push(
            `${name}: passes under a floating ${element.tagName.toLowerCase()} at ${Math.round(over.left)}-${Math.round(over.right)} px as the page scrolls`,
          );
      }
    }
    return found;
  });
}

/** Whether the page itself is wider than the screen (a reader would have to pan the whole page). */
export function pageWiderThanScreen(page: Page): Promise<string | undefined> {
  return page.evaluate(() => {
    const { scrollWidth, clientWidth } = document.documentElement;
    return scrollWidth > clientWidth + 1
      ? `the page is ${scrollWidth} px wide on a ${clientWidth} px screen`
      : undefined;
  });
}

/** Everything that keeps a reader from reading the page as it is at its current width. */
export async function readingProblems(page: Page): Promise<string[]> {
  const wide = await pageWiderThanScreen(page);
  return [
    ...(wide ? [wide] : []),
    ...(await wordsSplitAcrossLines(page)),
    ...(await clippedOrCoveredCells(page)),
    ...(await overflowingBoxes(page)),
  ];
}
