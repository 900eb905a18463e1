// changes.html: the API changelog. What changed in each released version of the API (the
// differences between the specs recorded in specs/releases, as @marketapi/diff classifies them),
// and what specs/ holds that no release has yet.
import type { Change, ChangeClass, ChangelogEntry } from "@marketapi/diff";
import { anchorId, escapeHtml } from "./html.js";
import { renderStaticPage } from "./static-page.js";

export const CHANGELOG_PAGE = "changes.html";

/** The API's history, as the build computes it from specs/releases and specs/. */
export interface ApiHistory {
  title: string;
  /** Where the releases were read from, as the build was given it ("specs/releases", "rel"). */
  source: string;
  /** Newest release first. */
  releases: ChangelogEntry[];
  /** Changes in specs/ since the last release, if any: the version they carry and the changes. */
  unreleased?: { version: string; since: string; changes: Change[] };
}

const CLASSES: { cls: ChangeClass; heading: string }[] = [
  { cls: "breaking", heading: "Breaking changes" },
  { cls: "undecided", heading: "Changes the diff cannot decide (they may break clients)" },
  { cls: "compatible", heading: "Compatible changes" },
  { cls: "informational", heading: "Informational changes" },
];

/** The version change itself is the heading of its section, not an item. */
const listed = (changes: Change[]) => changes.filter((change) => change.kind !== "api-version");

function countsBadges(changes: Change[]): string {
  return CLASSES.map(({ cls }) => [cls, changes.filter((c) => c.class === cls).length] as const)
    .filter(([, count]) => count > 0)
    .map(([cls, count]) => `<span class="badge change-${cls}">${count} ${cls}</span>`)
    .join(" ");
}

function renderChanges(changes: Change[]): string {
  if (changes.length === 0)
    return "<p>No change to the API's operations, parameters, schemas or extensions.</p>";
  return CLASSES.map(({ cls, heading }) => {
    const ofClass = changes.filter((change) => change.class === cls);
    if (ofClass.length === 0) return "";
    const items = ofClass
      .map((change) => {
        const operation = change.operations
          ? `${change.operations.map((op) => `<strong>${escapeHtml(op)}</strong>`).join(", ")}: `
          : "";
        const follow =
          change.breaksImplementations && cls !== "breaking"
            ? ' <span class="optional">(implementations must follow)</span>'
            : "";
        return `<li>${operation}${messageHtml(change.message)}${follow} <code>${escapeHtml(change.pointer || "/")}</code></li>`;
      })
      .join("\n");
    return `<h3>${heading}</h3>\n<ul class="changes ${cls}">\n${items}\n</ul>`;
  })
    .filter(Boolean)
    .join("\n");
}

function renderRelease(entry: ChangelogEntry): string {
  const changes = listed(entry.changes);
  const since = entry.previous
    ? `<p>Changes since ${escapeHtml(entry.previous)}. ${countsBadges(changes)}</p>\n${renderChanges(changes)}`
    : "<p>The first recorded release of the API; later versions are compared with it.</p>";
  return `<section class="release" id="${anchorId("v", entry.version)}">
<h2>Version ${escapeHtml(entry.version)}</h2>
${since}
</section>`;
}

export function renderChangelogPage(history: ApiHistory, siteName: string): string {
  const unreleased = history.unreleased
    ? `<section class="release" id="unreleased">
<h2>Not yet released: ${escapeHtml(history.unreleased.version)}</h2>
<p>What the spec in the repository changes since ${escapeHtml(history.unreleased.since)}. ${countsBadges(listed(history.unreleased.changes))}</p>
${renderChanges(listed(history.unreleased.changes))}
</section>`
    : "";
  const body = `<h1>API changelog</h1>
<p class="lead">What changed in each released version of ${escapeHtml(history.title)}, newest first. Each release is compared with the one before, and every change classified for the API's clients; a breaking change comes with a new major version.</p>
<div class="callout">
<p><strong>Breaking</strong>: a client built for the previous version can fail. <strong>Compatible</strong>: it cannot; where implementations of the API (servers, and what the contract tester checks) must change, the change says so. <strong>Informational</strong>: nothing a program sees.</p>
<table>
<thead><tr><th scope="col">Part that changes</th><th scope="col">accepts or carries less</th><th scope="col">accepts or carries more</th></tr></thead>
<tbody>
<tr><td>request (parameters, body, security, rules between parameters)</td><td>breaks clients</td><td>breaks implementations</td></tr>
<tr><td>response (status codes, bodies, headers)</td><td>breaks implementations</td><td>breaks clients</td></tr>
</tbody>
</table>
</div>
<nav aria-label="Versions"><ul class="toc">${history.unreleased ? '<li><a href="#unreleased">Not yet released</a></li>' : ""}${history.releases
    .map((entry) => `<li><a href="#${anchorId("v", entry.version)}">${escapeHtml(entry.version)}</a></li>`)
    .join("")}</ul></nav>
${unreleased}
${history.releases.map(renderRelease).join("\n")}
<footer>Generated from the released versions in <code>${escapeHtml(history.source)}</code>.</footer>`;
  return renderStaticPage({
    title: `API changelog · ${history.title}`,
    description: `What changed in each released version of ${history.title}.`,
    body,
    crumb: "API changelog",
    siteName,
  });
}

/** A token of a change's message at least this long (a value, a pointer) is set as code. */
const LONG_TOKEN = 24;

/**
 * A change's message as HTML: a value it quotes may be one token longer than a phone's line (a JSON
 * value, a pointer), and such a token goes in a code span, which scrolls sideways in its own box
 * instead of widening the page or breaking mid-way.
 */
export function messageHtml(message: string): string {
  return message
    .split(/(\s+)/)
    .map((part) =>
      part.length >= LONG_TOKEN && !/\s/.test(part) ? `<code>${escapeHtml(part)}</code>` : escapeHtml(part),
    )
    .join("");
}
