// Reading the Redoc 3 page the way a reader uses it: the sidebar groups operations by tag, and
// each operation has its own route (#/<tag>/<operation>) rendering an `httpItem` section.
import type { Locator, Page } from "playwright-core";

export interface SidebarOperation {
  tag: string;
  href: string;
  /** The item's text: summary, badges and the HTTP method, one per line. */
  text: string;
}

/** Opens each tag group of the sidebar in turn and lists the operation entries it shows. */
export async function sidebarOperations(page: Page, tags: string[]): Promise<SidebarOperation[]> {
  const found: SidebarOperation[] = [];
  for (const tag of tags) {
    const group = page.locator(".menu-item-type-group", {
      has: page.locator(":scope > a", { hasText: tag }),
    });
    await group.locator(":scope > a").click();
    await group.locator(".menu-item-type-operation").first().waitFor();
    const items = await group.locator(".menu-item-type-operation > a").evaluateAll((links) =>
      links.map((link) => ({
        href: link.getAttribute("href") ?? "",
        // innerText: the rendered text puts summary, badges and method on lines of their own.
        text: (link as HTMLElement).innerText,
      })),
    );
    found.push(...items.map((item) => ({ tag, ...item })));
  }
  return found;
}

/** Goes to a hash route of the already loaded page and returns the operation's section. */
export async function openOperation(page: Page, href: string): Promise<Locator> {
  await page.evaluate((hash) => {
    window.location.hash = hash;
  }, href);
  const section = page.locator(`[data-item-kind="httpItem"][data-section-id="${href.replace(/^#/, "")}"]`);
  await section.locator("h2").first().waitFor();
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

/** The language the samples panel shows (the label on its language menu's button). */
export async function sampleLanguage(section: Locator): Promise<string> {
  const menu = samplesPanel(section)
    .locator('[data-component-name="Panel/PanelHeader"] [data-component-name="Dropdown/Dropdown"]')
    .last();
  return ((await menu.locator("button").first().textContent()) ?? "").trim();
}

/** Switches the samples panel to `label` through its language menu, as a reader does. */
export async function chooseSampleLanguage(page: Page, section: Locator, label: string): Promise<void> {
  if ((await sampleLanguage(section)) === label) return;
  const menu = samplesPanel(section)
    .locator('[data-component-name="Panel/PanelHeader"] [data-component-name="Dropdown/Dropdown"]')
    .last();
  await menu.locator("button").first().click();
  // The menu opens in a layer of its own, outside the panel.
  await page.getByRole("menuitem", { name: label, exact: true }).click();
}

/** The code the samples panel shows, as text. */
export async function sampleCode(section: Locator): Promise<string> {
  return (
    (await samplesPanel(section).locator('pre[data-testid="source-code"] code').first().textContent()) ?? ""
  );
}
