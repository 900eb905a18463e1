/**
 * Compares two OpenAPI 3.1 or 3.0 documents: `diffDocuments(old, new)` lists every change, classified
 * breaking, compatible or informational from a client's side, with the JSON Pointer and a reason.
 * The `marketapi-diff` command is the same as a program.
 */

export type { LoadedSpec, OpenApiDocument, TextPosition } from "@marketapi/spec-loader";
export { DEFAULT_SPEC, SpecError } from "@marketapi/spec-loader";
export type { Change, ChangeClass, ChangeCounts, Direction, Effect } from "./change.js";
export { classify, countChanges, sortChanges } from "./change.js";
export { type DiffOptions, diffDocuments } from "./diff.js";
export { loadSpec, specFromText } from "./load-document.js";
export type { ChangelogEntry, GateVerdict, Release } from "./releases.js";
export { changelogOf, gate, readReleases } from "./releases.js";
export type { Compared } from "./render.js";
export { renderJson, renderMarkdown, renderText, summaryLine } from "./render.js";
export type { Bump, Version } from "./versions.js";
export { bumpBetween, compareVersions, parseVersion, requiredBump } from "./versions.js";
