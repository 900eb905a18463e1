// Where the built site and the screenshots live, and what the built site says about itself.

import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { operationEntries } from "@marketapi/spec/model";
import { type JsonObject, stringAt } from "../../src/json.js";

export const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const DIST_DIR = join(PACKAGE_DIR, "dist");
export const ARTIFACTS_DIR = join(PACKAGE_DIR, "artifacts");

export const SITE_FILES = [
  "index.html",
  "api.html",
  "endpoint.html",
  "changes.html",
  "openapi.json",
  "api.openapi.json",
  "openapi.yaml",
  "endpoint.schema.json",
];

/** Throws a message that says how to build when dist/ is incomplete. */
export function assertDistBuilt(): void {
  const missing = SITE_FILES.filter((file) => !existsSync(join(DIST_DIR, file)));
  if (missing.length > 0) {
    throw new Error(
      `packages/docs/dist is missing ${missing.join(", ")}: build the docs first with \`npx turbo run build --filter=@marketapi/docs\` (or \`npm run build\` at the repository root).`,
    );
  }
}

export function readDistJson(file: string): JsonObject {
  return JSON.parse(readFileSync(join(DIST_DIR, file), "utf8"));
}

export function artifactPath(name: string): string {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  return join(ARTIFACTS_DIR, name);
}

export interface ExpectedOperation {
  operationId: string;
  summary: string;
  method: string;
  path: string;
  tag: string;
  authClass: string | undefined;
}

/** The operations of the built openapi.json, as the API page must show them. */
export function expectedOperations(openapi: JsonObject): ExpectedOperation[] {
  return operationEntries(openapi).map(({ path, method, operation }) => ({
    operationId: stringAt(operation.operationId) ?? "",
    summary: stringAt(operation.summary) ?? "",
    method: method.toUpperCase(),
    path,
    tag: Array.isArray(operation.tags) ? String(operation.tags[0]) : "",
    authClass: stringAt(operation["x-auth-class"]),
  }));
}
