import type { OpenApiDocument } from "@marketapi/spec-loader";
import {
  describeValue,
  isOpenApi30,
  OPENAPI_30_OR_31,
  SpecError,
  versionFault,
} from "@marketapi/spec-loader";

/**
 * Throws SpecError unless the (parsed) document declares OpenAPI 3.1; Swagger 2.0 and OpenAPI 3.0
 * are named as such, with what to do. (The declared version is checked on the text, and 3.0
 * upgraded, by @marketapi/spec-loader's `openApi30: "upgrade"`.)
 */
export function checkVersion(source: string, document: OpenApiDocument): void {
  if (document.swagger !== undefined && document.openapi === undefined) {
    throw versionFault(source, "swagger", document.swagger);
  }
  if (isOpenApi30(document)) {
    throw new SpecError(
      source,
      "/openapi",
      `${OPENAPI_30_OR_31}; generate() and marketapi-codegen upgrade 3.0 themselves (upgradeOpenApi30), other callers upgrade it first`,
      describeValue(document.openapi),
    );
  }
  const fault = versionFault(source, "openapi", document.openapi);
  if (fault) throw fault;
}
