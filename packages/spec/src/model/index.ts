/**
 * `@marketapi/spec/model`: the one typed model of an OpenAPI 3.1 document of this API. Pure: it
 * reads a parsed document and does no I/O. Codegen, the reference server, the contract tester and
 * the docs walk `paths` and follow `$ref`s only through it (the diff, which must compare documents
 * the model refuses, walks the raw documents itself; docs/architecture.md). Every vendor extension
 * (docs/extensions.md) is a typed field, read in its own module under `extensions/` and listed in
 * the registry (`EXTENSIONS`, extensions/registry.ts). Faults are SpecModelErrors naming the JSON
 * Pointer of the faulty node. The model is plain data (structuredClone copies it); references are
 * followed with resolveRef on `document`.
 */
import { type EpochTime, readEpochTime } from "./extensions/epoch-time.js";
import { type FilledFrom, readFilledFrom } from "./extensions/filled-from.js";
import { type Refusals, readRefusals } from "./extensions/refusals.js";
import { type Relations, readRelations } from "./extensions/relations.js";
import { apiKeyHeaderBeside, readSigningRules, type SigningRule } from "./extensions/signing.js";
import { isObject, type JsonObject } from "./json.js";
import { type Operation, readOperations } from "./operations.js";
import { describeValue, SpecModelError } from "./spec-model-error.js";

export { BEHAVIOUR_EXTENSIONS, type Behaviour, readBehaviour } from "./behaviour.js";
export { errorCodesOf, type StatedCode } from "./error-codes.js";
export { AUTH_CLASSES, type AuthClass, deriveAuthClass, isSignedClass } from "./extensions/auth-class.js";
export type { FactSource } from "./extensions/behaviour-fields.js";
export { type CursorPaging, readCursorPaging } from "./extensions/cursor-paging.js";
export {
  type EpochTime,
  type EpochUnit,
  epochMicroseconds,
  epochUnitOf,
  insideEpochWindow,
  readEpochTime,
} from "./extensions/epoch-time.js";
export type {
  ExtensionConstraint,
  ExtensionDescriptor,
  ExtensionHost,
} from "./extensions/extension.js";
export type { FilledFrom } from "./extensions/filled-from.js";
export { type AboveMaximum, type LimitRule, readLimit } from "./extensions/limit.js";
export {
  type ListOrder,
  type ListOrderEntry,
  readListOrder,
  type SortDirection,
} from "./extensions/list-order.js";
export { exclusivePairs } from "./extensions/mutually-exclusive.js";
export { type OrderArithmetic, readOrderArithmetic } from "./extensions/order-arithmetic.js";
export type { OrderTypeRule } from "./extensions/order-type-rules.js";
export type { OutcomeLookup } from "./extensions/outcome-lookup.js";
export type { ParameterCondition } from "./extensions/parameter-conditions.js";
export type { ParameterPlacement } from "./extensions/parameter-placement.js";
export {
  REFUSAL_RULES,
  type RefusalRule,
  type RefusalRuleName,
  type Refusals,
  readRefusals,
  refusalFor,
  refusalRulesStatedBy,
  statedRefusalRules,
  unnamedRefusals,
} from "./extensions/refusals.js";
export { EXTENSIONS, extensionByKey, type RegisteredExtension } from "./extensions/registry.js";
export {
  type AggregateCover,
  type FactReport,
  type Mover,
  type OrderViews,
  type Relations,
  readRelations,
  relationOperations,
  type SharedFact,
  TRADE_FIELDS,
  type TradeField,
  type TradeSource,
  type TradeWindow,
  WINDOW_MEASURES,
  type WindowBounds,
  type WindowMeasure,
} from "./extensions/relations.js";
export type { ResponseVariants, VariantShape } from "./extensions/response-variant-by.js";
export { type ResultFilter, type ResultFilters, readResultFilters } from "./extensions/result-filter.js";
export type { ServerTime } from "./extensions/server-time.js";
export type { SigningRule, SigningTestVector, SigningWords } from "./extensions/signing.js";
export { readTimeWindow, type TimeWindow, type WindowAnchor } from "./extensions/time-window.js";
export {
  readUnknownReferences,
  type UnknownReferenceRule,
  type UnknownReferences,
} from "./extensions/unknown-reference.js";
export type { WeightRule, WeightTier } from "./extensions/weight.js";
export { readWirePattern } from "./extensions/wire-pattern.js";
export { HTTP_METHODS, type HttpMethod, isHttpMethod } from "./http-methods.js";
export { isObject, type JsonObject, type JsonSchema } from "./json.js";
export { pointerOf, segmentsOf, valueAt } from "./json-pointer.js";
export {
  acceptedMediaType,
  preferredMediaType,
  type ResponseAs,
  responseAsOf,
} from "./media-types.js";
export { isIdentifier, methodNameOf } from "./method-names.js";
export type {
  MediaType,
  Operation,
  OperationEntry,
  Parameter,
  ParameterLocation,
  RequestBody,
  Response,
  ResponseHeader,
  SecurityRequirement,
} from "./operations.js";
export { operationEntries, responseFor } from "./operations.js";
export { componentName, resolveRef } from "./refs.js";
export { describeValue, SpecModelError, throwAll } from "./spec-model-error.js";
export { subsetDocument } from "./subset.js";

export interface SpecModel {
  /** The document the model was read from (not copied: do not mutate it while the model is in use). */
  document: JsonObject;
  title: string;
  version: string;
  operations: Operation[];
  /** Every signing rule (`x-signing`), by security scheme name. */
  signingRules: ReadonlyMap<string, SigningRule>;
  /**
   * The signing rule of the signed operations: the one their security names (the first such
   * operation's); else the document's only rule; undefined when the document has none.
   */
  signing: SigningRule | undefined;
  /**
   * The header that carries the API key: the signing rule's, or else the document's only header
   * API key scheme; undefined when there is none.
   */
  apiKeyHeader: string | undefined;
  /** x-filled-from: where the parts the source document leaves open were taken from. */
  filledFrom: FilledFrom | undefined;
  /** x-refusals: the status and code of each refusal rule the document states. */
  refusals: Refusals | undefined;
  /** x-relations: the facts that two or more operations report, each stated once. */
  relations: Relations | undefined;
  /** x-epoch-time: the units of epoch time parameters, and how a value's unit is told. */
  epochTime: EpochTime | undefined;
}

/** The operation with this operationId. */
export function operationById(
  model: Pick<SpecModel, "operations">,
  operationId: string,
): Operation | undefined {
  return model.operations.find((operation) => operation.operationId === operationId);
}

/** Reads and checks a parsed OpenAPI 3.1 document. Throws SpecModelError on the first fault. */
export function buildSpecModel(document: JsonObject): SpecModel {
  if (!isObject(document))
    throw new SpecModelError("", "an OpenAPI document (an object)", describeValue(document));
  if (!isObject(document.info) || typeof document.info.title !== "string") {
    throw new SpecModelError("/info", "an info object with a title", describeValue(document.info));
  }
  const signingRules = readSigningRules(document);
  const operations = readOperations(document, signingRules);
  checkOutcomeLookups(operations);
  const signing =
    operations.find((operation) => operation.signed && operation.signing)?.signing ??
    (signingRules.size === 1 ? [...signingRules.values()][0] : undefined);
  return {
    document,
    title: document.info.title,
    version: typeof document.info.version === "string" ? document.info.version : "",
    operations,
    signingRules,
    signing,
    apiKeyHeader: signing?.apiKeyHeader ?? apiKeyHeaderBeside(document, undefined),
    filledFrom: readFilledFrom(document["x-filled-from"]),
    refusals: readRefusals(document["x-refusals"]),
    relations: readRelations(
      document["x-relations"],
      new Set(operations.map((operation) => operation.operationId)),
    ),
    epochTime: readEpochTime(document["x-epoch-time"]),
  };
}

/**
 * Each x-outcome-lookup names an operation of the document that declares the parameters it is
 * sent with and says how it refuses an unknown order (x-unknown-reference), which is what proves
 * a request was not carried out.
 */
function checkOutcomeLookups(operations: readonly Operation[]): void {
  for (const operation of operations) {
    const lookup = operation.behaviour.outcomeLookup;
    if (!lookup) continue;
    const at = `${operation.pointer}/x-outcome-lookup`;
    const target = operations.find((o) => o.operationId === lookup.operation);
    if (!target)
      throw new SpecModelError(
        `${at}/operation`,
        "the operationId of an operation",
        describeValue(lookup.operation),
      );
    for (const name of Object.keys(lookup.parameters))
      if (!target.parameters.some((p) => p.name === name))
        throw new SpecModelError(
          `${at}/parameters/${name}`,
          `a parameter of ${lookup.operation}`,
          describeValue(name),
        );
    if (!target.behaviour.unknownReferences?.order)
      throw new SpecModelError(
        `${at}/operation`,
        "an operation whose x-unknown-reference states how it refuses an unknown order",
        describeValue(lookup.operation),
      );
  }
}
