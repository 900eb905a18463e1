// index.html: the landing page linking the two documentation pages and the spec files.
import { operationEntries } from "@marketapi/spec/model";
import { linkItems, type SiteBrand } from "./brand.js";
import { ENDPOINT_PAGE } from "./endpoint-page.js";
import { escapeHtml, proseToHtml } from "./html.js";
import { type JsonObject, objectAt, stringAt } from "./json.js";
import { API_PAGE, SANDBOX_PAGE } from "./redoc-page.js";
import { renderStaticPage } from "./static-page.js";

export interface SpecFileLink {
  path: string;
  description: string;
  bytes: number;
}

function firstSentence(text: string): string {
  const match = text.match(/^[\s\S]*?[.!?](?=\s|$)/);
  return (match ? match[0] : text).trim();
}

function formatBytes(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`;
}

/** Pages the index links when they exist, and what it may claim. */
export interface IndexExtras {
  /** Where the API changelog is (what changed between versions of the spec); the API card links it. */
  apiChangelog?: string;
  /** The Endpoint record's schema: adds its card (and the build its page). */
  endpointSchema?: JsonObject;
  /** The samples are run against the reference server on every test run (this repository's build only). */
  samplesTested?: boolean;
  /** The languages of the code samples, as the reader sees them ("curl, TypeScript and Python"). */
  sampleLanguages?: string;
  /** The reference server's sandbox document: adds its card, beyond the API's. */
  sandbox?: JsonObject;
}

export function renderIndexPage(
  openapi: JsonObject,
  brand: SiteBrand,
  specFiles: SpecFileLink[],
  extras: IndexExtras = {},
): string {
  const info = objectAt(openapi.info);
  const apiTitle = stringAt(info.title) ?? "API";
  const version = stringAt(info.version) ?? "";
  const operations = operationEntries(openapi);
  const files = specFiles
    .map(
      (file) =>
        `<tr><td class="name"><a href="${escapeHtml(file.path)}"><code>${escapeHtml(file.path)}</code></a></td><td>${escapeHtml(file.description)}</td><td class="size">${formatBytes(file.bytes)}</td></tr>`,
    )
    .join("\n");
  const samples = extras.sampleLanguages
    ? `, a ${extras.sampleLanguages} sample${extras.samplesTested ? " that is run against the reference server on every test run" : ""}`
    : "";
  const links =
    brand.links.length > 0 ? `\n<h2>More</h2>\n<ul class="links">\n${linkItems(brand)}\n</ul>` : "";
  const body = `<h1>${escapeHtml(brand.name)} documentation</h1>
<p class="lead">${proseToHtml(stringAt(info.summary) ?? "")}</p>
<div class="cards">
<section class="card">
<h2><a href="${API_PAGE}">${escapeHtml(apiTitle)}</a></h2>
<p>Version ${escapeHtml(version)} · OpenAPI ${escapeHtml(String(openapi.openapi ?? ""))} · ${operations.length} operations.</p>
<p>Every operation with its parameters, responses and examples${samples}, and what the spec's extensions state: authentication class, request weight, signing and parameter rules.</p>
<p><a href="${API_PAGE}">Open the API reference →</a></p>${
    extras.apiChangelog === undefined
      ? ""
      : `\n<p class="changes"><a href="${escapeHtml(extras.apiChangelog)}">What changed between versions →</a></p>`
  }
</section>${extras.endpointSchema ? recordCard(extras.endpointSchema) : ""}${extras.sandbox ? sandboxCard(extras.sandbox) : ""}
</div>${links}
<h2>Spec files</h2>
<p>The machine-readable sources of ${extras.endpointSchema ? "both pages" : "the API reference"}, for code generators, validators and mock servers.</p>
<table>
<thead><tr><th scope="col">File</th><th scope="col">Content</th><th scope="col" class="size">Size</th></tr></thead>
<tbody>
${files}
</tbody>
</table>
<footer>These pages are static files and need no server-side code and no network access.</footer>`;
  const record = extras.endpointSchema ? ` and the ${recordTitleOf(extras.endpointSchema)} record` : "";
  return renderStaticPage({
    title: `${brand.name} documentation`,
    description: `Documentation of ${apiTitle}${record}.`,
    body,
    siteName: brand.name,
  });
}

const recordTitleOf = (schema: JsonObject) => stringAt(schema.title) ?? "Record";

/** The card of the sandbox page: beyond the API's operations, the reference server's own. */
function sandboxCard(sandbox: JsonObject): string {
  const info = objectAt(sandbox.info);
  const operations = operationEntries(sandbox);
  return `
<section class="card">
<h2><a href="${SANDBOX_PAGE}">Beyond the API: ${escapeHtml(stringAt(info.title) ?? "the sandbox")}</a></h2>
<p>Version ${escapeHtml(stringAt(info.version) ?? "")} · OpenAPI ${escapeHtml(String(sandbox.openapi ?? ""))} · ${operations.length} operations, not part of the API's contract.</p>
<p>${proseToHtml(stringAt(info.summary) ?? "")} ${operations.map(({ operation }) => `<code>${escapeHtml(String(operation.operationId))}</code>`).join(", ")}.</p>
<p><a href="${SANDBOX_PAGE}">Open the sandbox reference →</a></p>
</section>`;
}

/** The card of the record page. */
function recordCard(endpointSchema: JsonObject): string {
  const recordTitle = recordTitleOf(endpointSchema);
  const fieldCount = Object.keys(objectAt(endpointSchema.properties)).length;
  const defCount = Object.keys(objectAt(endpointSchema.$defs)).length;
  return `
<section class="card">
<h2><a href="${ENDPOINT_PAGE}">${escapeHtml(recordTitle)} record</a></h2>
<p>JSON Schema 2020-12 · ${fieldCount} fields · ${defCount} datatypes.</p>
<p>${proseToHtml(firstSentence(stringAt(endpointSchema.description) ?? ""))}</p>
<p><a href="${ENDPOINT_PAGE}">Open the ${escapeHtml(recordTitle)} reference →</a></p>
</section>`;
}
