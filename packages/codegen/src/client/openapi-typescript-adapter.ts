// The only module that knows openapi-typescript (7.13, frozen upstream, needs TypeScript 5 to
// run). Swapping the type generator means rewriting this file and nothing else.
import openapiTS, { astToString, type OpenAPI3, type TransformNodeOptions } from "openapi-typescript";
import ts from "typescript";
import type { OpenApiDocument } from "../spec/load-spec.js";

/**
 * Prints the `paths`, `components` and `operations` types of a document, plus a `Schema<Name>`,
 * `Response<Name>`, `Parameter<Name>`… alias for each component. Arrays whose `minItems` and
 * `maxItems` allow a few lengths only are typed as tuples. Query parameters with
 * `format: date-time` accept a `Date` as well as an RFC 3339 string (the client formats it).
 * The document is not modified.
 */
export async function renderTypes(document: OpenApiDocument): Promise<string> {
  const nodes = await openapiTS(structuredClone(document) as OpenAPI3, {
    silent: true,
    rootTypes: true,
    // Small fixed-length arrays become tuples: a PriceLevel (`minItems: 2, maxItems: 2`) is [string, string].
    arrayLength: true,
    transform: acceptDatesForDateTimeParameters,
  });
  return astToString(nodes);
}

// A parameter schema's location: #/paths/<path>[/<method>]/parameters/… or #/components/parameters/….
const PARAMETER_LOCATION = /^#\/(?:paths\/[^/]+(?:\/[a-z]+)?|components)\/parameters\//;

function acceptDatesForDateTimeParameters(
  schema: { type?: unknown; format?: unknown },
  options: TransformNodeOptions,
): ts.TypeNode | undefined {
  if (schema.type !== "string" || schema.format !== "date-time") return undefined;
  if (!PARAMETER_LOCATION.test(options.path ?? "")) return undefined;
  return ts.factory.createUnionTypeNode([
    ts.factory.createKeywordTypeNode(ts.SyntaxKind.StringKeyword),
    ts.factory.createTypeReferenceNode("Date"),
  ]);
}
