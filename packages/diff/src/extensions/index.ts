// Every vendor extension the diff knows, each in its own module: one home per extension.
import { authClass } from "./auth-class.js";
import { cursorPaging } from "./cursor-paging.js";
import { epochTime } from "./epoch-time.js";
import type { ExtensionRule } from "./extension.js";
import { filledFrom } from "./filled-from.js";
import { limit } from "./limit.js";
import { listOrder } from "./list-order.js";
import { mutuallyExclusive } from "./mutually-exclusive.js";
import { orderArithmetic } from "./order-arithmetic.js";
import { orderTypeRules } from "./order-type-rules.js";
import { outcomeLookup } from "./outcome-lookup.js";
import { parameterConditions } from "./parameter-conditions.js";
import { parameterPlacement } from "./parameter-placement.js";
import { refusals } from "./refusals.js";
import { relations } from "./relations.js";
import { responseVariantBy } from "./response-variant-by.js";
import { resultFilter } from "./result-filter.js";
import { serverTime } from "./server-time.js";
import { signing } from "./signing.js";
import { timeWindow } from "./time-window.js";
import { unknownReference } from "./unknown-reference.js";
import { weight } from "./weight.js";
import { type SchemaExtensionRule, wirePattern } from "./wire-pattern.js";

export type { ExtensionRule } from "./extension.js";
export type { SchemaExtensionRule } from "./wire-pattern.js";

/** Extensions at the top level of the document. */
export const DOCUMENT_EXTENSIONS: ReadonlyMap<string, ExtensionRule> = new Map([
  [filledFrom.key, filledFrom],
  [epochTime.key, epochTime],
  [refusals.key, refusals],
  [relations.key, relations],
]);

/** Extensions on an Operation object. */
export const OPERATION_EXTENSIONS: ReadonlyMap<string, ExtensionRule> = new Map(
  [
    authClass,
    weight,
    parameterPlacement,
    orderTypeRules,
    mutuallyExclusive,
    parameterConditions,
    responseVariantBy,
    listOrder,
    cursorPaging,
    timeWindow,
    resultFilter,
    limit,
    unknownReference,
    orderArithmetic,
    outcomeLookup,
    serverTime,
  ].map((rule) => [rule.key, rule]),
);

/** Extensions on a Security Scheme object. */
export const SECURITY_SCHEME_EXTENSIONS: ReadonlyMap<string, ExtensionRule> = new Map([
  [signing.key, signing],
]);

/** Extensions on a Schema object. */
export const SCHEMA_EXTENSIONS: ReadonlyMap<string, SchemaExtensionRule> = new Map([
  [wirePattern.key, wirePattern],
]);
