// The frame and stylesheet of the static pages (index.html, endpoint.html): one self-contained
// HTML file each, system fonts, inline CSS, light and dark colour schemes, no script.

import { BRAND, faviconLink, initialOf } from "./brand.js";
import { escapeHtml } from "./html.js";
import { CONTENT_SECURITY_POLICY_META } from "./offline.js";

export interface StaticPage {
  title: string;
  description: string;
  /** Already-escaped HTML of the <main> element's content. */
  body: string;
  /** Breadcrumb after the home link, or none on the home page itself. */
  crumb?: string;
  /** The site's name (SiteBrand.name), on every page's header. */
  siteName: string;
}

export function renderStaticPage(page: StaticPage): string {
  const crumb = page.crumb
    ? `<a href="index.html">${escapeHtml(page.siteName)} docs</a> <span aria-hidden="true">›</span> ${escapeHtml(page.crumb)}`
    : `<span>${escapeHtml(page.siteName)} docs</span>`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
${CONTENT_SECURITY_POLICY_META}
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)}</title>
<meta name="description" content="${escapeHtml(page.description)}">
${faviconLink(page.siteName)}
<style>
${STYLESHEET}
</style>
</head>
<body>
<header class="site-header"><nav aria-label="Breadcrumb"><span class="mark" aria-hidden="true">${escapeHtml(initialOf(page.siteName))}</span>${crumb}</nav></header>
<main>
${page.body}
</main>
</body>
</html>
`;
}

const { palette } = BRAND;

const STYLESHEET = `:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1a1c21; --muted: #555761; --line: #dcdde5; --soft: #f5f6f8;
  --accent: ${palette[6]}; --accent-strong: ${palette[8]}; --accent-soft: ${palette[2]};
  --code-bg: #eef0f3; --warn: #9a3412;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  font-size: 16px; line-height: 1.55;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #15171b; --fg: #e8e9ed; --muted: #a4a6b0; --line: #33353d; --soft: #1d1f24;
    --accent: ${palette[5]}; --accent-strong: ${palette[4]}; --accent-soft: #12322d;
    --code-bg: #262930; --warn: #fdba74;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); }
a { color: var(--accent-strong); }
a:hover { color: var(--accent); }
.site-header { border-bottom: 1px solid var(--line); padding: 0.75rem 1.5rem; background: var(--soft); }
.site-header nav { display: flex; align-items: center; gap: 0.5rem; font-weight: 600; }
.mark { display: inline-grid; place-items: center; width: 1.6rem; height: 1.6rem; border-radius: 0.35rem;
  background: ${palette[6]}; color: #fff; font-weight: 700; }
main { max-width: 72rem; margin: 0 auto; padding: 1.5rem 1.5rem 4rem; }
h1 { font-size: 2rem; line-height: 1.2; margin: 0.5rem 0 0.75rem; }
h2 { font-size: 1.4rem; margin: 2.5rem 0 0.75rem; padding-bottom: 0.3rem; border-bottom: 1px solid var(--line); }
h3 { font-size: 1.15rem; margin: 2rem 0 0.5rem; }
p { margin: 0.5rem 0; }
.lead { color: var(--muted); max-width: 60rem; }
/*
 * A code span is never broken inside a word: it wraps between words like text, and a token longer
 * than the line (a URL, a pattern) scrolls sideways in its own box instead of breaking mid-way.
 */
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 0.88em;
  background: var(--code-bg); padding: 0.1em 0.35em; border-radius: 0.25rem; overflow-wrap: normal;
  display: inline-block; max-width: 100%; overflow-x: auto; vertical-align: bottom; }
table { border-collapse: collapse; width: 100%; margin: 0.75rem 0 1.25rem; font-size: 0.95rem; }
th, td { text-align: left; vertical-align: top; padding: 0.5rem 0.65rem; border-bottom: 1px solid var(--line); }
th { background: var(--soft); font-weight: 600; position: sticky; top: 0; }
td.name, td.type { white-space: nowrap; }
td.pattern { max-width: 16rem; }
/* A size is one unit: "88.4 KiB", never "88.4" over "KiB". */
td.size, th.size { white-space: nowrap; text-align: right; }
/*
 * On a phone no word is broken to make a table fit. A table of fields (a name in its first
 * column) stacks: each row becomes a block, its name, type and whether it is required on one line
 * and its description below at the full width; the column headers stay for screen readers only.
 * Any other table keeps its columns and scrolls sideways when they need more than the screen.
 */
@media (max-width: 40rem) {
  main { padding: 1rem 0.75rem 3rem; }
  th, td { padding: 0.4rem 0.35rem; }
  table { display: block; overflow-x: auto; }
  table:has(td.name) { overflow-x: visible; }
  table:has(td.name) > thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
  table:has(td.name) > tbody { display: block; }
  table:has(td.name) > tbody > tr { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0.15rem 0.75rem;
    padding: 0.55rem 0; border-bottom: 1px solid var(--line); }
  table:has(td.name) > tbody > tr > td { display: block; padding: 0; border: 0; max-width: 100%; }
  table:has(td.name) > tbody > tr > td:last-child { flex: 1 1 100%; }
  td.pattern { max-width: 100%; }
}
.lead { font-size: 1.1rem; }
td.name a { text-decoration: none; }
.type code, .type a code { background: var(--accent-soft); }
.badge { display: inline-block; font-size: 0.75rem; font-weight: 600; padding: 0.05rem 0.45rem; border-radius: 999px;
  border: 1px solid var(--accent); color: var(--accent-strong); white-space: nowrap; }
.optional { color: var(--muted); font-size: 0.85rem; }
.badge.change-breaking { border-color: var(--warn); color: var(--warn); }
ul.changes li { margin: 0.35rem 0; }
.constraints { margin: 0.35rem 0 0; padding: 0; list-style: none; color: var(--muted); font-size: 0.9rem; }
.constraints li { margin: 0.15rem 0; }
.values { display: flex; flex-wrap: wrap; gap: 0.35rem; list-style: none; padding: 0; margin: 0.35rem 0; }
.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0.35rem 1rem; margin: 1rem 0; }
.facts dt { font-weight: 600; }
.facts dd { margin: 0; }
.toc { columns: 2 16rem; padding-left: 1.2rem; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(18rem, 1fr)); gap: 1rem; margin: 1.5rem 0; }
.card { border: 1px solid var(--line); border-radius: 0.6rem; padding: 1rem 1.25rem; background: var(--soft); }
.card h2 { border: 0; margin: 0 0 0.5rem; font-size: 1.2rem; }
.callout { border-left: 4px solid var(--accent); background: var(--soft); padding: 0.75rem 1rem; margin: 1rem 0; }
.first-screen { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1.15fr); gap: 0.5rem 2rem;
  align-items: start; margin: 1rem 0 1.5rem; }
@media (max-width: 56rem) { .first-screen { grid-template-columns: minmax(0, 1fr); } }
.first-screen h2 { margin-top: 0.5rem; font-size: 1.15rem; }
.required { padding-left: 1.2rem; margin: 0.5rem 0; }
.required li { margin: 0.45rem 0; }
/* An example shows its lines as written: a line longer than the box scrolls sideways, unbroken. */
pre.example { background: var(--code-bg); padding: 0.75rem 1rem; border-radius: 0.4rem; margin: 0.5rem 0;
  font-size: 0.8rem; line-height: 1.45; white-space: pre; overflow-x: auto; }
pre.example code { background: none; padding: 0; font-size: inherit; display: inline; overflow: visible; }
.nested { margin: 0.4rem 0 0; }
.nested table { font-size: 0.9rem; margin: 0.25rem 0; }
footer { margin-top: 3rem; color: var(--muted); font-size: 0.9rem; }`;
