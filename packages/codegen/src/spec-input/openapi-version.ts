import type { OpenApiDocument } from "@marketapi/spec-loader";
import { declaredVersion, describeValue, SpecError } from "@marketapi/spec-loader";

const EXPECTED = 'an OpenAPI 3.1 document ("openapi": "3.1.x"), or 3.0, which is upgraded first';

/** Converters people use, named in refusals: Swagger 2.0 to OpenAPI 3.0 (which codegen then upgrades). */
const SWAGGER_CONVERTER =
  "convert Swagger 2.0 to OpenAPI 3 first, for example with `npx swagger2openapi spec.json -o openapi.json` or `npx @scalar/openapi-upgrader`";

/**
 * Reads the version the text declares at its top level, before the document is parsed (a 13 MB
 * description is refused in milliseconds, not after seconds of parsing): Swagger 2.0, and versions
 * other than OpenAPI 3.0 and 3.1, are refused here, located. A text that declares nothing is left
 * to the parser and checkVersion.
 */
export function checkDeclaredVersion(source: string, text: string): void {
  const declared = declaredVersion(text);
  if (!declared) return;
  const fault = versionFault(source, declared.field, declared.value);
  if (fault) throw fault.locate(declared.line, declared.column);
}

/** Whether a document declares OpenAPI 3.0.x (codegen upgrades it to 3.1, see upgrade-3.0.ts). */
export function isOpenApi30(document: OpenApiDocument): boolean {
  return typeof document.openapi === "string" && /^3\.0\.\d+$/.test(document.openapi);
}

function versionFault(source: string, field: "openapi" | "swagger", value: unknown): SpecError | undefined {
  if (field === "swagger") {
    return new SpecError(
      source,
      "/swagger",
      `${EXPECTED}; ${SWAGGER_CONVERTER}`,
      `Swagger ${describeValue(value)}`,
    );
  }
  if (typeof value === "string" && /^3\.[01]\.\d+$/.test(value)) return undefined;
  return new SpecError(source, "/openapi", EXPECTED, describeValue(value));
}

/**
 * Throws SpecError unless the (parsed) document declares OpenAPI 3.1; Swagger 2.0 and OpenAPI 3.0
 * are named as such, with what to do.
 */
export function checkVersion(source: string, document: OpenApiDocument): void {
  if (document.swagger !== undefined && document.openapi === undefined) {
    throw versionFault(source, "swagger", document.swagger);
  }
  if (isOpenApi30(document)) {
    throw new SpecError(
      source,
      "/openapi",
      `${EXPECTED}; generate() and marketapi-codegen upgrade 3.0 themselves (upgradeOpenApi30), other callers upgrade it first`,
      describeValue(document.openapi),
    );
  }
  const fault = versionFault(source, "openapi", document.openapi);
  if (fault) throw fault;
}
