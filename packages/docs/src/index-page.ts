// index.html: the landing page linking the two documentation pages and the spec files.
import { operationEntries } from "@marketapi/spec/model";
import { BRAND } from "./brand.js";
import { ENDPOINT_PAGE } from "./endpoint-page.js";
import { escapeHtml, proseToHtml } from "./html.js";
import { type JsonObject, objectAt, stringAt } from "./json.js";
import { API_PAGE } from "./redoc-page.js";
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

/** Pages the index links when they exist. */
export interface IndexExtras {
  /** Where the API changelog is (what changed between versions of the spec); the API card links it. */
  apiChangelog?: string;
}

export function renderIndexPage(
  openapi: JsonObject,
  endpointSchema: JsonObject,
  specFiles: SpecFileLink[],
  extras: IndexExtras = {},
): string {
  const info = objectAt(openapi.info);
  const apiTitle = stringAt(info.title) ?? "API";
  const version = stringAt(info.version) ?? "";
  const operations = operationEntries(openapi);
  const recordTitle = stringAt(endpointSchema.title) ?? "Record";
  const fieldCount = Object.keys(objectAt(endpointSchema.properties)).length;
  const defCount = Object.keys(objectAt(endpointSchema.$defs)).length;
  const files = specFiles
    .map(
      (file) =>
        `<tr><td class="name"><a href="${escapeHtml(file.path)}"><code>${escapeHtml(file.path)}</code></a></td><td>${escapeHtml(file.description)}</td><td class="size">${formatBytes(file.bytes)}</td></tr>`,
    )
    .join("\n");
  const body = `<h1>${escapeHtml(BRAND.name)} documentation</h1>
<p class="lead">${proseToHtml(stringAt(info.summary) ?? "")}</p>
<div class="cards">
<section class="card">
<h2><a href="${API_PAGE}">${escapeHtml(apiTitle)}</a></h2>
<p>Version ${escapeHtml(version)} · OpenAPI ${escapeHtml(String(openapi.openapi ?? ""))} · ${operations.length} operations.</p>
<p>Every operation with its parameters, responses and examples, a curl, TypeScript and Python sample that is run against the reference server on every test run, its authentication class and request weight, the request-signing rule and the per-order-type parameter rules.</p>
<p><a href="${API_PAGE}">Open the API reference →</a></p>${
    extras.apiChangelog === undefined
      ? ""
      : `\n<p class="changes"><a href="${escapeHtml(extras.apiChangelog)}">What changed between versions →</a></p>`
  }
</section>
<section class="card">
<h2><a href="${ENDPOINT_PAGE}">${escapeHtml(recordTitle)} record</a></h2>
<p>JSON Schema 2020-12 · ${fieldCount} fields · ${defCount} datatypes.</p>
<p>${proseToHtml(firstSentence(stringAt(endpointSchema.description) ?? ""))}</p>
<p><a href="${ENDPOINT_PAGE}">Open the ${escapeHtml(recordTitle)} reference →</a></p>
</section>
</div>
<h2>Spec files</h2>
<p>The machine-readable sources of both pages, for code generators, validators and mock servers.</p>
<table>
<thead><tr><th scope="col">File</th><th scope="col">Content</th><th scope="col" class="size">Size</th></tr></thead>
<tbody>
${files}
</tbody>
</table>
<footer>These pages are static files and need no server-side code and no network access.</footer>`;
  return renderStaticPage({
    title: `${BRAND.name} documentation`,
    description: `Documentation of ${apiTitle} and the ${recordTitle} record.`,
    body,
  });
}
