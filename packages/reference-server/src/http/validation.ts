/**
 * Request validation comes from `@marketapi/validators` (generated from the spec: one source of
 * truth). This module only translates its faults into the live API's error codes and messages.
 */
import { parseRequest, type ValidationError } from "@marketapi/validators";
import {
  badCombination,
  illegalChars,
  mandatoryMissing,
  notRequired,
  oneOfMissing,
} from "../engine/errors.js";
import { ApiError, type ApiFault, duplicateParam, illegalParamValue } from "./apiError.js";
import type { OperationSpec } from "./operations.js";
import type { RequestParams } from "./params.js";

/** The live API's regex for `symbols`, quoted in its -1100 answers. */
export const SYMBOLS_PATTERN = '^\\[("[A-Z0-9-_.]{1,20}"(,"[A-Z0-9-_.]{1,20}"){0,}){0,1}\\]$';

/** The decoded, checked parameters of a request (numbers and arrays decoded per the spec). */
export type CheckedParams = Readonly<Record<string, unknown>>;

export function validateParams(operation: OperationSpec, params: RequestParams): CheckedParams {
  const result = parseRequest(operation.id, declaredOnly(operation, params.values), {
    signed: operation.signed,
  });
  if (result.valid) return result.params;
  throw toApiError(operation, result.errors);
}

/** The signing envelope every signed operation accepts besides its declared parameters. */
const ENVELOPE = new Set(["timestamp", "signature", "recvWindow"]);

/**
 * Real clients send parameters the live API defines but this spec leaves out (for example
 * `type=FULL` on the 24-hour ticker); they are ignored rather than refused. They still count in
 * the signed payload, which is checked over the bytes received.
 */
function declaredOnly(operation: OperationSpec, values: ReadonlyMap<string, string>): Map<string, string> {
  const kept = new Map<string, string>();
  for (const [name, value] of values) {
    if (operation.parameters.has(name) || (operation.signed && ENVELOPE.has(name))) kept.set(name, value);
  }
  return kept;
}

const RULE_RANK: Readonly<Record<string, number>> = { duplicate: 0, required: 1 };

function rank(error: ValidationError): number {
  if (error.rule === "x-order-type-rules" && error.message.includes(" is required")) return 1;
  return RULE_RANK[error.rule] ?? 3;
}

/** The API error for the most fundamental fault (duplicate, then missing, then the rest). */
export function toApiError(operation: OperationSpec, errors: readonly ValidationError[]): ApiFault {
  const first = [...errors].sort((a, b) => rank(a) - rank(b))[0];
  if (!first) return new ApiError(-1100, "Illegal characters found in a parameter.");
  const name = parameterOf(first.path);
  switch (first.rule) {
    case "duplicate":
      return duplicateParam(name);
    case "required":
      return missing(first);
    case "x-order-type-rules":
      return orderTypeRule(first, name);
    case "x-mutually-exclusive":
      return badCombination();
    case "x-parameter-conditions":
      return new ApiError(-2010, "Unsupported order combination");
    case "enum":
      return invalidEnum(operation, name, first);
    case "json":
      return name === "symbols"
        ? illegalChars(name, SYMBOLS_PATTERN)
        : new ApiError(-1135, invalidJson(name));
    case "uniqueItems":
      return new ApiError(-1151, "Symbol is present multiple times in the list.");
    default:
      return illegal(operation, name, first);
  }
}

function missing(error: ValidationError): ApiFault {
  const names = namesIn(error.message);
  const [first, second] = names;
  if (names.length === 2 && first !== undefined && second !== undefined) {
    return oneOfMissing(first, second);
  }
  return mandatoryMissing(first ?? parameterOf(error.path));
}

function orderTypeRule(error: ValidationError, name: string): ApiFault {
  if (error.message.includes(" is required")) return missing(error);
  if (error.message.includes("cannot be given together")) return badCombination();
  if (name === "timeInForce") return new ApiError(-1114, "TimeInForce parameter sent when not required.");
  return notRequired(name);
}

const ENUM_ERRORS: Readonly<Record<string, [number, string]>> = {
  side: [-1117, "Invalid side."],
  type: [-1116, "Invalid orderType."],
  timeInForce: [-1115, "Invalid timeInForce."],
};

function invalidEnum(operation: OperationSpec, name: string, error: ValidationError): ApiFault {
  const known = operation.id === "new_order" ? ENUM_ERRORS[name] : undefined;
  return known ? new ApiError(known[0], known[1]) : illegal(operation, name, error);
}

function illegal(operation: OperationSpec, name: string, error: ValidationError): ApiFault {
  if (name === "symbols") return illegalChars(name, SYMBOLS_PATTERN);
  const pattern = operation.patterns.get(name);
  if (pattern !== undefined) return illegalChars(name, pattern);
  return illegalParamValue(name, withoutPath(error));
}

function invalidJson(name: string): string {
  return `Parameter '${name}' is not valid JSON.`;
}

/** "/limit must be at most 5000" → "must be at most 5000". */
function withoutPath(error: ValidationError): string {
  return error.message.startsWith(error.path) ? error.message.slice(error.path.length).trim() : error.message;
}

/** The parameter a JSON Pointer points into: "/symbols/0" → "symbols". */
function parameterOf(path: string): string {
  const token = path.split("/")[1] ?? "";
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** Parameter names quoted as pointers in a message: "/quantity or /quoteOrderQty is required" → both. */
function namesIn(message: string): string[] {
  const before = message.split(" is required")[0] ?? message;
  return [...before.matchAll(/\/([^\s/]+)/g)].map((match) => parameterOf(`/${match[1]}`));
}
