// Makes the spec's `x-` extensions visible in Redoc, which renders descriptions but not unknown
// extensions. A pure function from spec to spec: the input is never modified, and the extensions
// stay in place in the copy (only descriptions and `x-badges` are added). Each extension's
// renderer is in `extensions/<name>.ts` and reads the typed model of @marketapi/spec/model.

import { buildSpecModel, type JsonObject, type Operation, type SpecModel } from "@marketapi/spec/model";
import { authClassBadges, authClassesMarkdown, authClassLine } from "./extensions/auth-class.js";
import { behaviourMarkdown } from "./extensions/behaviour.js";
import { credentialsMarkdown } from "./extensions/credentials.js";
import { epochTimeMarkdown } from "./extensions/epoch-time.js";
import { filledFromMarkdown } from "./extensions/filled-from.js";
import { mutuallyExclusiveMarkdown } from "./extensions/mutually-exclusive.js";
import { orderTypeRulesMarkdown } from "./extensions/order-type-rules.js";
import { parameterConditionsMarkdown } from "./extensions/parameter-conditions.js";
import { parameterPlacementLine } from "./extensions/parameter-placement.js";
import { refusalsMarkdown } from "./extensions/refusals.js";
import { relationsMarkdown } from "./extensions/relations.js";
import { responseVariantsMarkdown } from "./extensions/response-variant-by.js";
import { signingMarkdown } from "./extensions/signing.js";
import { weightLine } from "./extensions/weight.js";
import { wirePatternSentence } from "./extensions/wire-pattern.js";
import { objectAt, stringAt } from "./json.js";
import { code, table, text } from "./markdown.js";

export { AUTH_CLASSES_SECTION_TITLE, authClassesMarkdown } from "./extensions/auth-class.js";
export { credentialsMarkdown, SIGNING_SECTION_TITLE } from "./extensions/credentials.js";
export { EPOCH_TIME_SECTION_TITLE, epochTimeMarkdown } from "./extensions/epoch-time.js";
export { FILLED_FROM_SECTION_TITLE, filledFromMarkdown } from "./extensions/filled-from.js";
export { mutuallyExclusiveMarkdown } from "./extensions/mutually-exclusive.js";
export { orderTypeRulesMarkdown } from "./extensions/order-type-rules.js";
export { parameterConditionsMarkdown } from "./extensions/parameter-conditions.js";
export { REFUSALS_SECTION_TITLE, refusalsMarkdown } from "./extensions/refusals.js";
export { RELATIONS_SECTION_TITLE, relationsMarkdown } from "./extensions/relations.js";
export { responseVariantsMarkdown } from "./extensions/response-variant-by.js";
export { signingMarkdown } from "./extensions/signing.js";

export const OPERATIONS_SECTION_TITLE = "Operations";

/**
 * Returns a copy of `document` whose descriptions state what its `x-` extensions say. The copy is
 * read through the spec model, so a document the model refuses is refused here too
 * (SpecModelError, naming the pointer).
 */
export function surfaceVendorExtensions(document: JsonObject): JsonObject {
  const copy = structuredClone(document);
  const model = buildSpecModel(copy);
  for (const operation of model.operations) annotateOperation(operation, model);
  annotateParameters(model);
  annotateInfo(model);
  return copy;
}

function annotateOperation(operation: Operation, model: SpecModel): void {
  // The model's `raw` is the operation object of the copy: the annotations are written there.
  const target = operation.raw;
  const before = [operationFactsMarkdown(operation, model)];
  const after = [
    orderTypeRulesMarkdown(operation),
    parameterConditionsMarkdown(operation),
    mutuallyExclusiveMarkdown(operation),
    responseVariantsMarkdown(operation),
    behaviourMarkdown(operation),
  ].filter((part): part is string => part !== undefined);
  const description = operation.description?.trim();
  target.description = [...before, ...(description ? [description] : []), ...after].join("\n\n");
  const badges = authClassBadges(operation, target["x-badges"]);
  if (badges) target["x-badges"] = badges;
}

/** The list shown first in every operation: auth class, credentials, weight, parameter placement. */
export function operationFactsMarkdown(operation: Operation, model: SpecModel): string {
  const lines = [
    authClassLine(operation),
    `- **Credentials:** ${credentialsMarkdown(operation, model)}`,
    weightLine(operation),
    parameterPlacementLine(operation),
  ];
  return lines.filter((line) => line !== undefined).join("\n");
}

/** Each parameter declaration with a wire pattern states it in its description (once, if shared). */
function annotateParameters(model: SpecModel): void {
  const done = new Set<JsonObject>();
  for (const parameter of model.operations.flatMap((operation) => operation.parameters)) {
    const sentence = wirePatternSentence(parameter);
    if (sentence === undefined || done.has(parameter.declaration)) continue;
    done.add(parameter.declaration);
    const description = stringAt(parameter.declaration.description)?.trim();
    parameter.declaration.description = description ? `${description}\n\n${sentence}` : sentence;
  }
}

function annotateInfo(model: SpecModel): void {
  const info = objectAt(model.document.info);
  model.document.info = info;
  const description = stringAt(info.description)?.trim() ?? "";
  const overview = `## ${OPERATIONS_SECTION_TITLE}\n\n${operationsOverviewMarkdown(model.operations)}`;
  // The overview goes before the first heading, so it is the first thing a reader sees.
  const firstHeading = description.search(/^## /m);
  const intro = firstHeading === -1 ? description : description.slice(0, firstHeading).trim();
  const rest = firstHeading === -1 ? "" : description.slice(firstHeading).trim();
  const appended = [
    authClassesMarkdown(model),
    signingMarkdown(model),
    epochTimeMarkdown(model),
    refusalsMarkdown(model),
    filledFromMarkdown(model),
    relationsMarkdown(model),
  ].filter((part): part is string => part !== undefined);
  info.description = [intro, overview, rest, ...appended].filter((part) => part !== "").join("\n\n");
}

/**
 * One row per operation: summary, then method and path. Two columns only, so that paths do not
 * break inside names in Redoc's narrow middle column; classes and weights are listed per operation.
 */
export function operationsOverviewMarkdown(operations: readonly Operation[]): string {
  const rows = operations.map((operation) => [
    text(operation.summary ?? operation.operationId),
    `**${operation.method.toUpperCase()}** ${code(operation.path)}`,
  ]);
  return table(["Operation", "Request"], rows);
}
