// Loose reads of JSON values (the parsed OpenAPI document and JSON Schemas), kept loose on purpose:
// the document has been linted before it reaches this package, and the docs must render whatever
// the spec says. Operations and references are read through @marketapi/spec/model.

export { isObject, type JsonObject } from "@marketapi/spec/model";

import { isObject, type JsonObject } from "@marketapi/spec/model";

export function objectAt(value: unknown): JsonObject {
  return isObject(value) ? value : {};
}

export function stringAt(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

export function stringsAt(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
