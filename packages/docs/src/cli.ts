// marketapi-docs: the documentation site of a spot trading API spec, built from a spec file.
import { readFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { EXIT, parseCommandLine, reportUsage, UsageError, unknownWord } from "@marketapi/command";
import {
  changelogOf,
  diffDocuments,
  type LoadedSpec,
  loadSpec,
  readReleases,
  SpecError,
} from "@marketapi/diff";
import { endpointSchemaPath } from "@marketapi/spec";
import { buildSpecModel, SpecModelError } from "@marketapi/spec/model";
import { stringify } from "yaml";
import type { ApiHistory } from "./changelog-page.js";
import type { JsonObject } from "./json.js";
import type { SampleLanguage } from "./samples/code-samples.js";
import { SampleScenarioError } from "./samples/sample-requests.js";
import { readSampleSpec, SampleSpecError } from "./samples/sample-spec.js";
import { generateSite, SiteSourceError } from "./site.js";
import { BuildError, writeSite } from "./write-site.js";

export const SHORT_USAGE =
  "Usage: marketapi-docs build --spec FILE --out DIR [--title TEXT] [--logo URL] [--samples LIST] [--releases DIR] [--endpoint-page] [--endpoint-schema FILE]";

export const USAGE = `marketapi-docs: the documentation site of an OpenAPI 3.1 spec, as static files.

${SHORT_USAGE}

  --spec FILE             the OpenAPI 3.1 document (YAML or JSON), e.g. your copy of the spec
  --out DIR               where to write the site (created if missing): index.html, api.html,
                          the spec as YAML and JSON, api.openapi.json
  --title TEXT            the site's name on every page (default: the spec's info.title)
  --logo URL              the logo of the API page's sidebar (default: the spec's info.x-logo,
                          else one drawn from the name); the index also links the spec's
                          externalDocs and info.contact
  --samples LIST          the code samples' languages, comma-separated: curl, python,
                          typescript (calls @marketapi/client's spot client, so only for
                          specs that keep this repository's operations), or none
                          (default: curl,python). An operation the samples cannot write
                          (a path parameter, a security scheme they do not sign) is listed
                          on the page without samples
  --releases DIR          released versions, one folder per version (1.0.0/) holding a file named
                          as --spec's: adds changes.html, the API changelog
  --endpoint-page         add endpoint.html, the FHIR Endpoint record's page, and its card
  --endpoint-schema FILE  the Endpoint record's JSON Schema for that page (implies
                          --endpoint-page; default: the one of @marketapi/spec)
  -h, --help              this text

Exit codes (the same for every marketapi command): 0 written; 1 the spec or another input is at
fault (file#pointer (line, column)); 2 usage error; 3 an internal error.
`;

export interface BuildOptions {
  spec: string;
  out: string;
  /** The Endpoint page's schema file, or true for the one of @marketapi/spec; absent: no page. */
  endpointSchema?: string | true;
  releases?: string;
  title?: string;
  logo?: string;
  samples?: SampleLanguage[];
}

const SAMPLE_NAMES: Record<string, SampleLanguage> = {
  curl: "curl",
  python: "Python",
  typescript: "TypeScript",
};

function sampleLanguages(text: string): SampleLanguage[] {
  const names = text
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (names.length === 1 && names[0] === "none") return [];
  const unknown = names.filter((name) => SAMPLE_NAMES[name] === undefined);
  if (unknown.length > 0 || names.length === 0) {
    throw new UsageError(
      `--samples: unknown language ${JSON.stringify(unknown[0] ?? "")}; one or more of curl, python, typescript, or none`,
    );
  }
  return [...new Set(names.map((name) => SAMPLE_NAMES[name]!))];
}

export function parseCommand(argv: readonly string[]): BuildOptions | "help" {
  const parsed = parse(argv);
  const values = parsed.values as Record<string, string | undefined> & {
    help?: boolean;
    "endpoint-page"?: boolean;
  };
  const { positionals } = parsed;
  if (values.help) return "help";
  const [command, ...extra] = positionals;
  if (command !== "build") {
    throw new UsageError(
      command === undefined ? "missing the command: build" : unknownWord("command", command, ["build"]),
    );
  }
  if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
  if (values.spec === undefined) throw new UsageError("build needs --spec FILE, the OpenAPI document");
  if (values.out === undefined) throw new UsageError("build needs --out DIR, where the site goes");
  const endpointSchema = values["endpoint-schema"] ?? (values["endpoint-page"] ? true : undefined);
  return {
    spec: values.spec,
    out: values.out,
    ...(endpointSchema !== undefined ? { endpointSchema } : {}),
    ...(values.releases !== undefined ? { releases: values.releases } : {}),
    ...(values.title !== undefined ? { title: values.title } : {}),
    ...(values.logo !== undefined ? { logo: values.logo } : {}),
    samples: values.samples === undefined ? ["curl", "Python"] : sampleLanguages(values.samples),
  };
}

function parse(argv: readonly string[]) {
  return parseCommandLine(argv, {
    spec: { type: "string" },
    out: { type: "string" },
    "endpoint-schema": { type: "string" },
    "endpoint-page": { type: "boolean" },
    releases: { type: "string" },
    title: { type: "string" },
    logo: { type: "string" },
    samples: { type: "string" },
    help: { type: "boolean", short: "h" },
  });
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new BuildError(`${path}: cannot read ${what}: ${(error as Error).message}`);
  }
}

/** The API's releases from `dir` and what the spec changes since the last one. */
function historyOf(dir: string, spec: LoadedSpec, title: string): ApiHistory {
  const releases = readReleases(dir, basename(spec.source));
  if (releases.length === 0) {
    throw new BuildError(
      `${dir}: no released version (expected folders such as 1.0.0/ holding ${basename(spec.source)})`,
    );
  }
  const last = releases.at(-1);
  const changes = last ? diffDocuments(last.spec.document, spec.document) : [];
  return {
    title,
    source: dir,
    releases: changelogOf(releases),
    ...(last && changes.length > 0
      ? { unreleased: { version: String(spec.document.info.version), since: last.version, changes } }
      : {}),
  };
}

/** Builds the site; returns the lines to print. */
export function build(options: BuildOptions): string[] {
  const spec = loadSpec(options.spec);
  const document = spec.document;
  // What the pages rely on, checked first, so that a fault is said where it is written.
  try {
    buildSpecModel(document);
  } catch (error) {
    if (!(error instanceof SpecModelError)) throw error;
    const fault = new SpecError(spec.source, error.pointer, error.expected, error.found);
    const at = spec.locate?.(error.pointer);
    throw at ? fault.locate(at.line, at.column) : fault;
  }
  const text = readText(options.spec, "the spec");
  const isJson = /\.json$/i.test(options.spec);
  const title = String(document.info?.title ?? "the API");
  const site = generateSite({
    openapiJson: `${JSON.stringify(document, null, 2)}\n`,
    openapiYaml: isJson ? stringify(document) : text,
    ...(options.endpointSchema !== undefined
      ? {
          endpointSchemaJson: readText(
            options.endpointSchema === true ? endpointSchemaPath : options.endpointSchema,
            "the Endpoint schema",
          ),
        }
      : {}),
    ...(options.releases !== undefined ? { apiHistory: historyOf(options.releases, spec, title) } : {}),
    brand: {
      ...(options.title !== undefined ? { title: options.title } : {}),
      ...(options.logo !== undefined ? { logo: options.logo } : {}),
    },
    samples: { languages: options.samples ?? ["curl", "Python"], tested: false },
  });
  const out = resolve(options.out);
  const written = writeSite(site, out);
  const skipped =
    (options.samples ?? ["curl"]).length > 0
      ? readSampleSpec(document as JsonObject, { strict: false }).skipped.map(
          ({ operationId, reason }) => `marketapi-docs: note: no code sample for ${operationId}: ${reason}`,
        )
      : [];
  return [
    ...skipped,
    `marketapi-docs: wrote ${written.length} files to ${out}:`,
    ...written.map(({ path, bytes }) => `  ${path.padEnd(22)}${(bytes / 1024).toFixed(1).padStart(8)} KiB`),
    `open ${resolve(out, "index.html")}, or copy the folder to any static host`,
  ];
}

/** Errors about the input: said in one line, exit 1. */
function isInputError(error: unknown): error is Error {
  return [BuildError, SiteSourceError, SpecError, SampleSpecError, SampleScenarioError].some(
    (kind) => error instanceof kind,
  );
}

export function main(argv: readonly string[]): number {
  let options: BuildOptions | "help";
  try {
    options = parseCommand(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return reportUsage("marketapi-docs", error, SHORT_USAGE);
  }
  if (options === "help") {
    process.stdout.write(USAGE);
    return EXIT.ok;
  }
  try {
    process.stdout.write(`${build(options).join("\n")}\n`);
    return EXIT.ok;
  } catch (error) {
    if (!isInputError(error)) throw error;
    process.stderr.write(`marketapi-docs: ${error.message}\n`);
    return EXIT.fault;
  }
}
