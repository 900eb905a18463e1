import { readFileSync } from "node:fs";
import { endpointSchemaPath, openapiJsonPath, openapiYamlPath } from "@marketapi/spec";
import { describe, expect, it } from "vitest";
import { generateSite, SiteSourceError } from "../src/site.js";

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
      "endpoint.schema.json",
    ]);
    const contents = Object.fromEntries(site.files.map((file) => [file.path, file.contents]));
    expect(contents["openapi.yaml"]).toBe(sources.openapiYaml);
    expect(contents["openapi.json"]).toBe(sources.openapiJson);
    expect(contents["endpoint.schema.json"]).toBe(sources.endpointSchemaJson);
    expect(site.redoc.output).toBe("api.html");
  });

  it("links every page and spec file from the index", () => {
    const index = site.files.find((file) => file.path === "index.html")?.contents ?? "";
    for (const target of [
      "api.html",
      "endpoint.html",
      "openapi.yaml",
      "openapi.json",
      "endpoint.schema.json",
    ]) {
      expect(index).toContain(`href="${target}"`);
    }
    expect(index).toContain("17 operations");
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
