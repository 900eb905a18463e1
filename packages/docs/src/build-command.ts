// `npm run build` in packages/docs: writes dist/ from the bundled spec (@marketapi/spec, built and
// linted first by turbo) and renders dist/api.html with `redocly build-docs --inlineBundle`.
import { readFileSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { changelogOf, diffDocuments, loadSpec, readReleases, SpecError } from "@marketapi/diff";
import {
  endpointSchemaPath,
  openapiJsonPath,
  openapiYamlPath,
  sandboxOpenapiJsonPath,
} from "@marketapi/spec";
import type { ApiHistory } from "./changelog-page.js";
import { generateSite, SiteSourceError } from "./site.js";
import { BuildError, writeSite } from "./write-site.js";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const repoDir = join(packageDir, "..", "..");
const distDir = join(packageDir, "dist");

/** The Endpoint record the Endpoint page shows first: a FHIR REST server, what API readers connect to. */
const ENDPOINT_EXAMPLE = join(
  repoDir,
  "specs",
  "examples",
  "endpoint",
  "valid",
  "r4-template-hl7-fhir-rest.json",
);

function readSpecFile(path: string): string {
  return readOrExplain(path, "build @marketapi/spec first (`npm run build` at the repository root does it)");
}

function readOrExplain(path: string, remedy: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    throw new BuildError(`${path} is missing: ${remedy}.`);
  }
}

/** The spec bundle must come from the current specs/, or the docs would describe an old spec. */
function assertSpecBundleCurrent(openapiYaml: string, endpointSchemaJson: string): void {
  const sourceYaml = readFileSync(join(repoDir, "specs", "spot-api.openapi.yaml"), "utf8");
  const sourceSchema = JSON.parse(readFileSync(join(repoDir, "specs", "endpoint.schema.json"), "utf8"));
  if (sourceYaml !== openapiYaml || !isDeepStrictEqual(sourceSchema, JSON.parse(endpointSchemaJson))) {
    throw new BuildError(
      "packages/spec/dist is older than specs/: run `npm run build` at the repository root (it lints and bundles the spec before the docs).",
    );
  }
}

/** The API's releases (specs/releases) and what specs/ changes since the last, for the changelog page. */
function apiHistory(title: string): ApiHistory {
  const releases = readReleases(join(repoDir, "specs", "releases"), "spot-api.openapi.yaml");
  const current = loadSpec(join(repoDir, "specs", "spot-api.openapi.yaml"));
  const last = releases.at(-1);
  const changes = last ? diffDocuments(last.spec.document, current.document) : [];
  const version = String(current.document.info.version);
  return {
    title,
    source: "specs/releases/",
    releases: changelogOf(releases),
    ...(last && changes.length > 0 ? { unreleased: { version, since: last.version, changes } } : {}),
  };
}

function main(): void {
  const openapiJson = readSpecFile(openapiJsonPath);
  const openapiYaml = readSpecFile(openapiYamlPath);
  const endpointSchemaJson = readSpecFile(endpointSchemaPath);
  assertSpecBundleCurrent(openapiYaml, endpointSchemaJson);

  const started = performance.now();
  const endpointExample = {
    name: basename(ENDPOINT_EXAMPLE),
    json: readOrExplain(ENDPOINT_EXAMPLE, "the Endpoint page shows it as its example"),
  };
  const history = apiHistory(String(JSON.parse(openapiJson).info?.title ?? "the API"));
  const site = generateSite({
    openapiJson,
    openapiYaml,
    endpointSchemaJson,
    endpointExample,
    apiHistory: history,
    // The reference server's own operations, beyond the API's: a page of their own.
    sandboxJson: readSpecFile(sandboxOpenapiJsonPath),
    // This repository's site: its own name, and samples in every language, run by its tests.
    brand: { title: "marketapi" },
    samples: { tested: true },
  });
  rmSync(distDir, { recursive: true, force: true });
  const written = writeSite(site, distDir)
    .map(({ path, bytes }) => `dist/${path} (${Math.round(bytes / 1024)} KiB)`)
    .join(", ");
  console.log(`docs: wrote ${written} in ${Math.round(performance.now() - started)} ms`);
}

try {
  main();
} catch (error) {
  if (error instanceof BuildError || error instanceof SiteSourceError || error instanceof SpecError) {
    console.error(`docs: ${error.message}`);
    process.exit(1);
  }
  throw error;
}
