import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { describeValue, SpecError } from "./spec-error.js";

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is untyped input
export type OpenApiDocument = Record<string, any>;

export interface LoadedSpec {
  /** How the spec is named in messages and generated headers: the path as given, or the package name. */
  source: string;
  document: OpenApiDocument;
}

/** The spec shipped in @marketapi/spec, used when no --spec is given. */
export const DEFAULT_SPEC = "@marketapi/spec";

/**
 * Loads an OpenAPI document from a YAML or JSON file, or from an installed package that exports
 * `openapi.json` (such as @marketapi/spec). Throws SpecError on unreadable or unparsable input.
 */
export async function loadSpec(spec: string = DEFAULT_SPEC): Promise<LoadedSpec> {
  const file = await locateSpec(spec);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new SpecError(spec, "", "a readable YAML or JSON file", `an error: ${(error as Error).message}`);
  }
  return { source: spec, document: parseSpecText(spec, text) };
}

/** Parses spec text (JSON is YAML, so one parser serves both). */
export function parseSpecText(source: string, text: string): OpenApiDocument {
  let document: unknown;
  try {
    document = parse(text, { prettyErrors: true, uniqueKeys: true });
  } catch (error) {
    const message = (error as Error).message.split("\n")[0];
    throw new SpecError(source, "", "a YAML or JSON document", `a syntax error: ${message}`);
  }
  if (typeof document !== "object" || document === null || Array.isArray(document)) {
    throw new SpecError(source, "", "an OpenAPI 3.1 object at the top level", describeValue(document));
  }
  return document as OpenApiDocument;
}

async function locateSpec(spec: string): Promise<string> {
  if (!looksLikePackageName(spec)) return spec;
  try {
    const { fileURLToPath } = await import("node:url");
    return fileURLToPath(import.meta.resolve(`${spec}/openapi.json`));
  } catch {
    throw new SpecError(
      spec,
      "",
      `an installed package that exports "${spec}/openapi.json"`,
      "no such package",
    );
  }
}

function looksLikePackageName(spec: string): boolean {
  return /^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/.test(spec) && !/\.(ya?ml|json)$/.test(spec);
}
