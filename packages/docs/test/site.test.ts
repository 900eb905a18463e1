import { readFileSync } from "node:fs";
import { diffDocuments } from "@marketapi/diff";
import { endpointSchemaPath, loadOpenApi, openapiJsonPath, openapiYamlPath } from "@marketapi/spec";
import { buildSpecModel } from "@marketapi/spec/model";
import { describe, expect, it } from "vitest";
import { brandOf } from "../src/brand.js";
import { renderIndexPage } from "../src/index-page.js";
import { generateSite, SiteSourceError } from "../src/site.js";

/** How many operations the spec has: tests count from the model, never a literal. */
const operationCount = buildSpecModel(loadOpenApi()).operations.length;

const sources = {
  openapiJson: readFileSync(openapiJsonPath, "utf8"),
  openapiYaml: readFileSync(openapiYamlPath, "utf8"),
  endpointSchemaJson: readFileSync(endpointSchemaPath, "utf8"),
};

describe("generateSite", () => {
  const site = generateSite(sources);

  it("writes the two static pages and the spec files verbatim, and plans api.html", () => {
    expect(site.files.map((file) => file.path)).toEqual([
      "index.html",
      "endpoint.html",
      "openapi.yaml",
      "openapi.json",
      "api.openapi.json",
      "endpoint.schema.json",
    ]);
    const contents = Object.fromEntries(site.files.map((file) => [file.path, file.contents]));
    expect(contents["openapi.yaml"]).toBe(sources.openapiYaml);
    expect(contents["openapi.json"]).toBe(sources.openapiJson);
    expect(contents["endpoint.schema.json"]).toBe(sources.endpointSchemaJson);
    expect(site.redoc.output).toBe("api.html");
    // The document api.html renders is published as it is handed to Redoc.
    expect(contents["api.openapi.json"]).toBe(site.redoc.spec);
  });

  it("links every page and spec file from the index", () => {
    const index = site.files.find((file) => file.path === "index.html")?.contents ?? "";
    for (const target of [
      "api.html",
      "endpoint.html",
      "openapi.yaml",
      "openapi.json",
      "api.openapi.json",
      "endpoint.schema.json",
    ]) {
      expect(index).toContain(`href="${target}"`);
    }
    expect(index).toContain(`${operationCount} operations`);
  });

  it("has a place for the API changelog, empty until there is one", () => {
    const openapi = JSON.parse(sources.openapiJson);
    const brand = brandOf(openapi);
    const without = renderIndexPage(openapi, brand, []);
    expect(without).not.toContain('class="changes"');
    const withChangelog = renderIndexPage(openapi, brand, [], { apiChangelog: "changes/api.html" });
    expect(withChangelog).toContain('<p class="changes"><a href="changes/api.html">');
    const index = (extra: object) =>
      generateSite({ ...sources, ...extra }).files.find((file) => file.path === "index.html")?.contents;
    expect(index({})).not.toContain('class="changes"');
    expect(index({ apiChangelog: "changelog.html" })).toContain('<a href="changelog.html">');
  });

  it("with the API's history, adds the changelog page and links it from the index", () => {
    const openapi = JSON.parse(sources.openapiJson);
    const after = structuredClone(openapi);
    after.info.version = "1.1.0";
    after.paths["/api/v3/ping"].get["x-weight"] = 3;
    const ping = after.paths["/api/v3/ping"].get;
    ping.parameters = [...(ping.parameters ?? []), { name: "echo", in: "query", schema: { type: "string" } }];
    const apiHistory = {
      title: "Spot <API>",
      source: "specs/releases/",
      releases: [
        { version: "1.1.0", previous: "1.0.0", changes: diffDocuments(openapi, after) },
        { version: "1.0.0", changes: [] },
      ],
      unreleased: { version: "2.0.0", since: "1.1.0", changes: diffDocuments(after, openapi) },
    };
    const files = generateSite({ ...sources, apiHistory }).files;
    expect(files.find((file) => file.path === "index.html")?.contents).toContain(
      '<p class="changes"><a href="changes.html">',
    );
    const page = files.find((file) => file.path === "changes.html")?.contents ?? "";
    expect(page).toContain("Spot &lt;API&gt;");
    expect(page).toContain('<section class="release" id="unreleased">');
    expect(page).toContain(
      '<h2>Version 1.1.0</h2>\n<p>Changes since 1.0.0. <span class="badge change-compatible">1 compatible</span> <span class="badge change-informational">1 informational</span></p>',
    );
    expect(page).toContain(
      '<li><strong>GET /api/v3/ping (ping)</strong>: optional query parameter &quot;echo&quot; added: implementations must accept it <span class="optional">(implementations must follow)</span> <code>/paths/~1api~1v3~1ping/get/parameters/1</code></li>',
    );
    expect(page).toContain("optional query parameter &quot;echo&quot; removed");
    expect(page).not.toContain("API version");
    expect(page).toContain("The first recorded release of the API");
  });

  it("shows the Endpoint example it is given on the Endpoint page", () => {
    const example = { name: "example.json", json: '{ "resourceType": "Endpoint" }' };
    const page = generateSite({ ...sources, endpointExample: example }).files.find(
      (file) => file.path === "endpoint.html",
    );
    expect(page?.contents).toContain("{ &quot;resourceType&quot;: &quot;Endpoint&quot; }");
  });

  it("is a pure function of its sources", () => {
    expect(generateSite(sources)).toEqual(site);
  });

  it("names the file that is not JSON", () => {
    expect(() => generateSite({ ...sources, endpointSchemaJson: "{" })).toThrow(SiteSourceError);
    expect(() => generateSite({ ...sources, openapiJson: "[]" })).toThrow(
      /openapi\.json: expected a JSON object/,
    );
  });
});
