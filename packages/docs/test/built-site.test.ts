// The built site (dist/) as published: api.html renders exactly the document published beside it.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadOpenApi, loadSandboxOpenApi } from "@marketapi/spec";
import { buildSpecModel, operationEntries } from "@marketapi/spec/model";
import { describe, expect, it } from "vitest";
import {
  API_DOCUMENT,
  API_PAGE,
  embeddedDefinition,
  INDEX_PAGE,
  SANDBOX_DOCUMENT,
  SANDBOX_PAGE,
} from "../src/redoc-page.js";
import { REDOC_CODE_SAMPLES } from "../src/samples/code-samples.js";
import { assertDistBuilt, DIST_DIR, readDistJson } from "./support/dist.js";

/** How many operations the spec has: tests count from the model, never a literal. */
const operationCount = buildSpecModel(loadOpenApi()).operations.length;

describe("dist/", () => {
  assertDistBuilt();
  const document = readDistJson(API_DOCUMENT);

  it(`${API_PAGE} embeds exactly the document published as ${API_DOCUMENT}`, () => {
    const html = readFileSync(join(DIST_DIR, API_PAGE), "utf8");
    expect(embeddedDefinition(html)).toEqual(document);
  });

  it(`${API_DOCUMENT} has a sample in every language on each operation`, () => {
    const operations = operationEntries(document);
    expect(operations).toHaveLength(operationCount);
    for (const { operation } of operations) {
      const samples = operation["x-codeSamples"] as { lang: string; label: string; source: string }[];
      expect(
        samples.map(({ lang, label }) => ({ lang, label })),
        String(operation.operationId),
      ).toEqual(REDOC_CODE_SAMPLES.languages);
      for (const sample of samples) expect(sample.source.length).toBeGreaterThan(100);
    }
  });
});

describe("dist/: the reference server's sandbox document, beyond the API", () => {
  assertDistBuilt();
  const document = readDistJson(SANDBOX_DOCUMENT);

  it(`${SANDBOX_PAGE} embeds exactly ${SANDBOX_DOCUMENT}, which has the sandbox's operations and none of the API's`, () => {
    const html = readFileSync(join(DIST_DIR, SANDBOX_PAGE), "utf8");
    expect(embeddedDefinition(html)).toEqual(document);
    const ids = (doc: Record<string, unknown>) =>
      operationEntries(doc).map(({ operation }) => operation.operationId);
    expect(ids(document)).toEqual(ids(loadSandboxOpenApi()));
    for (const id of ids(loadOpenApi())) expect(ids(document)).not.toContain(id);
  });

  it(`${INDEX_PAGE} lists it apart from the API, as not part of its contract`, () => {
    const index = readFileSync(join(DIST_DIR, INDEX_PAGE), "utf8");
    expect(index).toContain(`<a href="${SANDBOX_PAGE}">Beyond the API:`);
    expect(index).toContain("not part of the API's contract");
    expect(index).toContain(`href="${SANDBOX_DOCUMENT}"`);
  });
});
