import type { OpenApiDocument } from "@marketapi/spec-loader";
import { describeValue, SpecError } from "@marketapi/spec-loader";

const EXPECTED = 'an OpenAPI 3.1 document ("openapi": "3.1.x")';

/** Throws SpecError unless the document declares OpenAPI 3.1; Swagger 2.0 and OpenAPI 3.0 are named as such. */
export function checkVersion(source: string, document: OpenApiDocument): void {
  if (document.swagger !== undefined && document.openapi === undefined) {
    throw new SpecError(
      source,
      "/swagger",
      `${EXPECTED}; convert Swagger 2.0 documents first`,
      `Swagger ${describeValue(document.swagger)}`,
    );
  }
  const version = document.openapi;
  if (typeof version === "string" && /^3\.0\.\d+$/.test(version)) {
    throw new SpecError(
      source,
      "/openapi",
      `${EXPECTED}; OpenAPI 3.0 schemas differ (nullable, boolean exclusiveMinimum), so convert it first`,
      describeValue(version),
    );
  }
  if (typeof version !== "string" || !/^3\.1\.\d+$/.test(version)) {
    throw new SpecError(source, "/openapi", EXPECTED, describeValue(version));
  }
}
