/**
 * Request validation comes from `@marketapi/validators` (generated from the spec: one source of
 * truth). This module only translates its faults into the live API's error codes and messages.
 */
import { parseRequest, type ValidationError } from "@marketapi/validators";
import { parseRequest as parseSandboxRequest } from "@marketapi/validators/sandbox";
import { DECIMAL_PATTERN } from "../engine/decimal.js";
import {
  type ApiError,
  badCombination,
  duplicateParam,
  illegalChars,
  illegalParameter,
  illegalParamValue,
  invalidEnum,
  invalidInterval,
  invalidJsonParam,
  invalidTimeUnit,
  mandatoryMissing,
  newOrderRejected,
  notRequired,
  oneOfMissing,
  REJECT,
  repeatedSymbol,
  timeInForceNotRequired,
} from "../errors.js";
import type { ServerOperation } from "./api.js";
import { TIME_UNIT_HEADER } from "./time-unit.js";

/** The live API's regex for `symbols`, quoted in its -1100 answers. */
export const SYMBOLS_PATTERN = '^\\[("[A-Z0-9-_.]{1,20}"(,"[A-Z0-9-_.]{1,20}"){0,}){0,1}\\]$';
const DECIMAL = new RegExp(DECIMAL_PATTERN);

/** The decoded, checked parameters of a request (numbers and arrays decoded per the spec). */
export type CheckedParams = Readonly<Record<string, unknown>>;

/**
 * Validates the declared parameters (and the signing envelope) against the spec. The live-API
 * extras were split off before (live-extras.ts); `recvWindow` is checked by authentication.
 */
export function validateParams(
  operation: ServerOperation,
  declared: ReadonlyMap<string, string>,
): CheckedParams {
  const parse = operation.document === "sandbox" ? parseSandboxRequest : parseRequest;
  const result = parse(operation.operationId, declared, { signed: operation.signed });
  if (result.valid) return result.params;
  throw toApiError(operation, result.errors, declared);
}

/** Duplicates first, then missing parameters (plain or of an order type's rule), then the rest. */
function rank(error: ValidationError): number {
  if (error.keyword === "duplicate") return 0;
  if (error.keyword === "required" && (error.rule === "required" || error.rule === "x-order-type-rules"))
    return 1;
  return 3;
}

/**
 * The API error for the most fundamental fault (duplicate, then missing, then the rest), from the
 * validator's structured facts (`rule`, `keyword`, `params`), never from its message text. `text`,
 * the values as received, lets a malformed decimal quote the live API's regex.
 */
export function toApiError(
  operation: ServerOperation,
  errors: readonly ValidationError[],
  text: ReadonlyMap<string, string> = new Map(),
): ApiError {
  const first = [...errors].sort((a, b) => rank(a) - rank(b))[0];
  if (!first) return illegalParameter();
  const name = parameterOf(first.path);
  switch (first.rule) {
    case "duplicate":
      return duplicateParam();
    case "required":
      return missing(first);
    case "x-order-type-rules":
      return orderTypeRule(first, name);
    case "x-mutually-exclusive":
      return badCombination();
    case "x-parameter-conditions":
      return newOrderRejected(REJECT.unsupportedCombination);
    case "enum":
      return unknownValue(operation, name, first, text.get(name));
    case "json":
      return name === "symbols" ? illegalChars(name, SYMBOLS_PATTERN) : invalidJsonParam(name);
    case "uniqueItems":
      return repeatedSymbol();
    default:
      return illegal(operation, name, first, text.get(name));
  }
}

/** A missing parameter, or two of which one must be sent (`params.missing`). */
function missing(error: ValidationError): ApiError {
  const names = error.params.missing ?? [];
  const [first, second] = names;
  if (names.length === 2 && first !== undefined && second !== undefined) {
    return oneOfMissing(first, second);
  }
  return mandatoryMissing(first ?? parameterOf(error.path));
}

/** An order type's rule: a parameter it requires, two it does not combine, or one it forbids. */
function orderTypeRule(error: ValidationError, name: string): ApiError {
  if (error.keyword === "required") return missing(error);
  if (error.params.pair !== undefined) return badCombination();
  const forbidden = error.params.forbidden ?? name;
  if (forbidden === "timeInForce") return timeInForceNotRequired();
  return notRequired(forbidden);
}

/** The parameters of new_order whose unknown values the live API names with codes of their own. */
const ENUM_PARAMETERS: ReadonlySet<string> = new Set(["side", "type", "timeInForce"]);
/** The candles' operations, whose unknown `interval` the live API answers -1120. */
const KLINE_OPERATIONS: ReadonlySet<string> = new Set(["kline_candlestick_data", "ui_klines"]);

function unknownValue(
  operation: ServerOperation,
  name: string,
  error: ValidationError,
  text: string | undefined,
): ApiError {
  if (operation.operationId === "new_order" && ENUM_PARAMETERS.has(name)) {
    return invalidEnum(name as "side" | "type" | "timeInForce");
  }
  if (KLINE_OPERATIONS.has(operation.operationId) && name === "interval") return invalidInterval();
  if (name.toLowerCase() === TIME_UNIT_HEADER) return invalidTimeUnit();
  return illegal(operation, name, error, text);
}

function illegal(operation: ServerOperation, name: string, error: ValidationError, text?: string): ApiError {
  if (name === "symbols") return illegalChars(name, SYMBOLS_PATTERN);
  const parameter = operation.parameterByName.get(name);
  // A decimal that is not plain decimal text: the live API's -1100, quoting its regex.
  if (parameter?.decimal && text !== undefined && !DECIMAL.test(text)) {
    return illegalChars(name, DECIMAL_PATTERN);
  }
  if (parameter?.schemaPattern !== undefined) return illegalChars(name, parameter.schemaPattern);
  return illegalParamValue(name, withoutPath(error));
}

/** The validator's words without the leading path, quoted to people in the -1100 text: "must be at most 5000". */
function withoutPath(error: ValidationError): string {
  return error.message.startsWith(error.path) ? error.message.slice(error.path.length).trim() : error.message;
}

/** The parameter a JSON Pointer points into: "/symbols/0" → "symbols". */
function parameterOf(path: string): string {
  const token = path.split("/")[1] ?? "";
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}
