// The documentation site as data: from the bundled spec files to the files of dist/ plus the
// inputs of the one Redoc run. No I/O here; build-command.ts writes the result and runs Redoc.
import { type BrandOptions, brandOf } from "./brand.js";
import { type ApiHistory, CHANGELOG_PAGE, renderChangelogPage } from "./changelog-page.js";
import { ENDPOINT_PAGE, type RecordExample, renderEndpointPage } from "./endpoint-page.js";
import { renderIndexPage } from "./index-page.js";
import { isObject, type JsonObject } from "./json.js";
import {
  API_DOCUMENT,
  INDEX_PAGE,
  type RedocJob,
  redocJob,
  SANDBOX_DOCUMENT,
  SANDBOX_PAGE,
} from "./redoc-page.js";
import { languagesText, type SampleOptions } from "./samples/code-samples.js";

/** One file of dist/: its path inside dist/, its text and, for the spec files, what it holds. */
export interface GeneratedFile {
  path: string;
  contents: string;
  description?: string;
}

/** The bundled spec files, as written by @marketapi/spec. */
export interface SiteSources {
  /** The spec as written, published as openapi.json and openapi.yaml. */
  openapiJson: string;
  openapiYaml: string;
  /** When the spec is OpenAPI 3.0: its version, and the 3.1 document it was upgraded to, which the pages show. */
  upgraded?: { from: string; document: JsonObject };
  /** The Endpoint record's JSON Schema: adds its page, card and file. Absent: no Endpoint page. */
  endpointSchemaJson?: string;
  /** The site's name and logo where not the spec's (`info.title`, `info.x-logo`). */
  brand?: BrandOptions;
  /** The code samples' languages, and whether this is the tested build of this repository. */
  samples?: SampleOptions;
  /** An Endpoint record shown first on its page (one of specs/examples/endpoint/valid). */
  endpointExample?: RecordExample;
  /** The address of the API changelog, linked from the index once there is one. */
  apiChangelog?: string;
  /** The API's released versions and their changes: adds the changelog page, which the index links. */
  apiHistory?: ApiHistory;
  /**
   * The reference server's sandbox document (@marketapi/spec's sandbox.openapi.json): the operations
   * it serves beyond the API's. Adds its page (no code samples: the client covers the API's
   * operations only) and the index's card, listed as beyond the API.
   */
  sandboxJson?: string;
}

export interface Site {
  /** Files written to dist/ as they are. */
  files: GeneratedFile[];
  /** The Redoc run that adds api.html to dist/. */
  redoc: RedocJob;
  /** The Redoc run that adds sandbox.html, when the site has the sandbox document. */
  sandboxRedoc?: RedocJob;
}

export class SiteSourceError extends Error {
  override name = "SiteSourceError";
}

function parseObject(text: string, file: string): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SiteSourceError(`${file}: not valid JSON: ${(error as Error).message}`);
  }
  if (!isObject(value)) throw new SiteSourceError(`${file}: expected a JSON object`);
  return value;
}

export function generateSite(sources: SiteSources): Site {
  const openapi = sources.upgraded?.document ?? parseObject(sources.openapiJson, "openapi.json");
  const version = sources.upgraded ? `OpenAPI ${sources.upgraded.from}` : "OpenAPI 3.1";
  const endpointSchema =
    sources.endpointSchemaJson === undefined
      ? undefined
      : parseObject(sources.endpointSchemaJson, "endpoint.schema.json");
  const brand = brandOf(openapi, sources.brand);
  const samples = sources.samples ?? { tested: true };
  const redoc = redocJob(openapi, brand, samples);
  const sandbox =
    sources.sandboxJson === undefined ? undefined : parseObject(sources.sandboxJson, SANDBOX_DOCUMENT);
  const sandboxRedoc =
    sandbox === undefined
      ? undefined
      : redocJob(sandbox, brand, { languages: [], tested: false }, SANDBOX_PAGE);
  const specFiles = [
    {
      path: "openapi.yaml",
      contents: sources.openapiYaml,
      description: `The ${version} description as written (YAML).`,
    },
    { path: "openapi.json", contents: sources.openapiJson, description: "The same description as JSON." },
    {
      path: API_DOCUMENT,
      contents: redoc.spec,
      description: `The document the API page renders: openapi.json${sources.upgraded ? " upgraded to OpenAPI 3.1" : ""} with the extensions written into its descriptions${languagesText(samples) === "" ? "" : ` and a ${languagesText(samples)} sample on every operation (x-codeSamples)`}.`,
    },
    ...(sources.endpointSchemaJson === undefined
      ? []
      : [
          {
            path: "endpoint.schema.json",
            contents: sources.endpointSchemaJson,
            description: "The JSON Schema (2020-12) of the Endpoint record.",
          },
        ]),
    ...(sandboxRedoc === undefined
      ? []
      : [
          {
            path: SANDBOX_DOCUMENT,
            contents: sandboxRedoc.spec,
            description:
              "The reference server's sandbox document: the operations it serves beyond the API's (OpenAPI 3.1), as the sandbox page renders it.",
          },
        ]),
  ];
  const links = specFiles.map(({ path, contents, description }) => ({
    path,
    description,
    bytes: Buffer.byteLength(contents),
  }));
  const changelog = sources.apiHistory
    ? [{ path: CHANGELOG_PAGE, contents: renderChangelogPage(sources.apiHistory, brand.name) }]
    : [];
  const apiChangelog = sources.apiChangelog ?? (sources.apiHistory ? CHANGELOG_PAGE : undefined);
  return {
    files: [
      {
        path: INDEX_PAGE,
        contents: renderIndexPage(openapi, brand, links, {
          apiChangelog,
          ...(endpointSchema ? { endpointSchema } : {}),
          samplesTested: samples.tested === true,
          sampleLanguages: languagesText(samples),
          ...(sandbox ? { sandbox } : {}),
        }),
      },
      ...(endpointSchema
        ? [
            {
              path: ENDPOINT_PAGE,
              contents: renderEndpointPage(endpointSchema, brand.name, sources.endpointExample),
            },
          ]
        : []),
      ...changelog,
      ...specFiles.map(({ path, contents }) => ({ path, contents })),
    ],
    redoc,
    ...(sandboxRedoc ? { sandboxRedoc } : {}),
  };
}
