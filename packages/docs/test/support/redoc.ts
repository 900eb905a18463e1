// Reading the Redoc 3 page the way a reader uses it: the sidebar groups operations by tag, and
// each operation has its own route (#/<tag>/<operation>) rendering an `httpItem` section.
import type { Locator, Page } from "playwright-core";
import { until, waitingFor } from "./waits.js";

export interface SidebarOperation {
  tag: string;
  href: string;
  /** The item's text: summary, badges and the HTTP method, one per line. */
  text: string;
}

/**
 * Opens each tag group of the sidebar in turn and lists the operation entries it shows.
 *
 * A group opens by its route, not by a click on its link: the click toggles, and Redoc folds the
 * groups it leaves on its own a moment after a route changes, so a click could land on a group
 * still open and fold it (the wait for its operations then never ends). On its route, a group is
 * open and stays open, whatever state it was in.
 */
export async function sidebarOperations(page: Page, tags: string[]): Promise<SidebarOperation[]> {
  const found: SidebarOperation[] = [];
  for (const tag of tags) {
    const group = await openGroup(page, tag);
    const items = await shownOperations(group, tag);
    found.push(...items.map(({ href, text }) => ({ tag, href, text })));
  }
  return found;
}

/**
 * The operation links of an open group, read again until each is shown with its route: Redoc
 * renders a group again a moment after its route changes, and a link read meanwhile is hidden
 * (its innerText then runs summary, badges and method together) or not there yet.
 */
async function shownOperations(group: Locator, tag: string) {
  const read = () =>
    group.locator(".menu-item-type-operation > a").evaluateAll((links) =>
      links.map((link) => ({
        href: link.getAttribute("href") ?? "",
        // innerText: the rendered text puts summary, badges and method on lines of their own.
        text: (link as HTMLElement).innerText,
        shown: link.checkVisibility(),
      })),
    );
  let items: Awaited<ReturnType<typeof read>> = [];
  await until(`every operation of the sidebar's group "${tag}" shown with its route`, async () => {
    items = await read();
    return items.length > 0 && items.every((item) => item.shown && item.href.startsWith("#/"));
  }).toBe(true);
  return items;
}

/** The sidebar entry of the operation summarised `summary` in the group `tag`. */
export async function sidebarEntry(page: Page, tag: string, summary: string): Promise<SidebarOperation> {
  const entry = (await sidebarOperations(page, [tag])).find((item) => item.text.split("\n")[0] === summary);
  if (!entry) throw new Error(`the sidebar's group "${tag}" shows no entry "${summary}"`);
  return entry;
}

/** Shows the operations of the sidebar's group `tag` and returns the group. */
async function openGroup(page: Page, tag: string): Promise<Locator> {
  const group = page.locator(".menu-item-type-group", {
    has: page.locator(":scope > a", { hasText: tag }),
  });
  const link = group.locator(":scope > a");
  const route = await waitingFor(`the sidebar's link of the group "${tag}" (${link})`, () =>
    link.getAttribute("href"),
  );
  if (!route) throw new Error(`the sidebar's group "${tag}" has a link without an href`);
  const operations = group.locator(".menu-item-type-operation").first();
  await goToRoute(page, route);
  await waitingFor(`the operations of the sidebar's group "${tag}" (${operations})`, () =>
    operations.waitFor(),
  );
  return group;
}

/** Goes to a hash route of the already loaded page. */
async function goToRoute(page: Page, route: string): Promise<void> {
  await page.evaluate((hash) => {
    window.location.hash = hash;
  }, route);
}

/** Goes to a hash route of the already loaded page and returns the operation's section. */
export async function openOperation(page: Page, href: string): Promise<Locator> {
  if (!href.startsWith("#/")) throw new Error(`an operation's route starts with "#/"; got "${href}"`);
  await goToRoute(page, href);
  const section = page.locator(`[data-item-kind="httpItem"][data-section-id="${href.replace(/^#/, "")}"]`);
  const heading = section.locator("h2").first();
  await waitingFor(`the heading of the operation at ${href} (${heading})`, () => heading.waitFor());
  return section;
}

/** innerText with runs of whitespace folded, for substring checks across elements. */
export async function flatText(locator: Locator): Promise<string> {
  // innerText: what the reader sees, not hidden or collapsed text.
  return (await locator.innerText()).replace(/\s+/g, " ");
}

/** The request-samples panel of an operation's section: its language menu and its code. */
function samplesPanel(section: Locator): Locator {
  return section.locator(".panel-request-samples").first();
}

/** The language menu of the samples panel (its button is labelled with the language shown). */
function languageMenu(section: Locator): Locator {
  return samplesPanel(section)
    .locator('[data-component-name="Panel/PanelHeader"] [data-component-name="Dropdown/Dropdown"]')
    .last();
}

/** Waits until the operation's section shows its samples panel, and returns the panel. */
export async function shownSamplesPanel(section: Locator): Promise<Locator> {
  const panel = samplesPanel(section);
  await waitingFor(`the samples panel (${panel})`, () => panel.waitFor());
  return panel;
}

/** The language the samples panel shows (the label on its language menu's button). */
export async function sampleLanguage(section: Locator): Promise<string> {
  return ((await languageMenu(section).locator("button").first().textContent()) ?? "").trim();
}

/** Opens the samples panel's language menu, as a reader does, and returns its entries. */
export async function openLanguageMenu(page: Page, section: Locator): Promise<Locator> {
  const button = languageMenu(section).locator("button").first();
  await waitingFor(`a click on the samples' language menu (${button})`, () => button.click());
  // The menu opens in a layer of its own, outside the panel.
  const entries = page.locator('[role="menuitem"]', { has: page.locator("span[title]") });
  await waitingFor(`the language menu's entries (${entries})`, () => entries.first().waitFor());
  return entries;
}

/** Switches the samples panel to `label` through its language menu, as a reader does. */
export async function chooseSampleLanguage(page: Page, section: Locator, label: string): Promise<void> {
  if ((await sampleLanguage(section)) === label) return;
  await openLanguageMenu(page, section);
  const entry = page.getByRole("menuitem", { name: label, exact: true });
  await waitingFor(`a click on the language "${label}" (${entry})`, () => entry.click());
}

/** The code the samples panel shows, as text. */
export async function sampleCode(section: Locator): Promise<string> {
  return (
    (await samplesPanel(section).locator('pre[data-testid="source-code"] code').first().textContent()) ?? ""
  );
}
