// The OpenAPI versions the commands read: 3.1 as it is, 3.0 upgraded in memory (upgrade-3.0.ts).
// One rule for every reader that takes both (codegen, docs), so that a 3.0 document is read the
// same way by each and refused the same way when it is not 3.0 or 3.1.

import type { OpenApiDocument } from "./load-spec.js";
import { describeValue, SpecError } from "./spec-error.js";
import { declaredVersion } from "./text-scan.js";

/** What a reader that upgrades 3.0 expects, in refusals. */
export const OPENAPI_30_OR_31 =
  'an OpenAPI 3.1 document ("openapi": "3.1.x"), or 3.0, which is upgraded first';

/** Converters people use, named in refusals: Swagger 2.0 to OpenAPI 3.0 (which is then upgraded). */
export const SWAGGER_CONVERTER =
  "convert Swagger 2.0 to OpenAPI 3 first, for example with `npx swagger2openapi spec.json -o openapi.json` or `npx @scalar/openapi-upgrader`";

/** Whether a document declares OpenAPI 3.0.x. */
export function isOpenApi30(document: OpenApiDocument): boolean {
  return typeof document.openapi === "string" && /^3\.0\.\d+$/.test(document.openapi);
}

/**
 * The fault of a declared version a reader of 3.0 and 3.1 does not read: Swagger 2.0 (with a
 * converter named), or any version but 3.0.x and 3.1.x; undefined when it reads it.
 */
export function versionFault(
  source: string,
  field: "openapi" | "swagger",
  value: unknown,
): SpecError | undefined {
  if (field === "swagger") {
    return new SpecError(
      source,
      "/swagger",
      `${OPENAPI_30_OR_31}; ${SWAGGER_CONVERTER}`,
      `Swagger ${describeValue(value)}`,
    );
  }
  if (typeof value === "string" && /^3\.[01]\.\d+$/.test(value)) return undefined;
  return new SpecError(source, "/openapi", OPENAPI_30_OR_31, describeValue(value));
}

/**
 * Reads the version the text declares at its top level, before the document is parsed (a 13 MB
 * description is refused in milliseconds, not after seconds of parsing): Swagger 2.0, and versions
 * other than OpenAPI 3.0 and 3.1, are refused here, located. A text that declares nothing is left
 * to the parser and to the reader.
 */
export function checkDeclaredVersion(source: string, text: string): void {
  const declared = declaredVersion(text);
  if (!declared) return;
  const fault = versionFault(source, declared.field, declared.value);
  if (fault) throw fault.locate(declared.line, declared.column);
}
