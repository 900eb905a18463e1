// x-unknown-reference: the error that answers a reference to an unknown symbol or order (docs/extensions.md).

import { describeValue, SpecModelError } from "../spec-model-error.js";
import { type FilledFrom, readFilledFrom, readInteger, readObject, readStrings } from "./behaviour-fields.js";

export interface UnknownReferenceRule {
  /** Parameters any of which may carry the reference (`symbol`; `orderId`, `origClientOrderId`). */
  parameters: string[];
  status: number;
  code: number;
}

export interface UnknownReferences {
  symbol?: UnknownReferenceRule;
  order?: UnknownReferenceRule;
  filledFrom: FilledFrom;
}

const KINDS = ["symbol", "order"] as const;

export function readUnknownReferences(
  value: unknown,
  where: string,
  declared: ReadonlySet<string>,
): UnknownReferences | undefined {
  if (value === undefined) return undefined;
  const at = `${where}/x-unknown-reference`;
  const object = readObject(value, at, "an object with symbol and/or order, and filledFrom");
  const result: UnknownReferences = { filledFrom: readFilledFrom(object, at) };
  for (const kind of KINDS) {
    if (object[kind] === undefined) continue;
    const kindAt = `${at}/${kind}`;
    const rule = readObject(object[kind], kindAt, "an object with parameters, status and code");
    const parameters = readStrings(rule, "parameters", kindAt);
    parameters.forEach((name, i) => {
      if (!declared.has(name))
        throw new SpecModelError(
          `${kindAt}/parameters/${i}`,
          "the name of a parameter of the operation",
          describeValue(name),
        );
    });
    const status = readInteger(rule, "status", kindAt);
    if (status < 400 || status > 499)
      throw new SpecModelError(`${kindAt}/status`, "a 4xx status", describeValue(status));
    result[kind] = { parameters, status, code: readInteger(rule, "code", kindAt) };
  }
  if (!result.symbol && !result.order) throw new SpecModelError(at, "symbol or order", describeValue(value));
  return result;
}
