// x-unknown-reference: the error that answers a reference to an unknown symbol or order (docs/extensions.md).

import { describeValue, SpecModelError } from "../spec-model-error.js";
import { type FactSource, readFactSource, readInteger, readObject, readStrings } from "./behaviour-fields.js";
import type { ExtensionDescriptor } from "./extension.js";

export interface UnknownReferenceRule {
  /** Parameters any of which may carry the reference (`symbol`; `orderId`, `origClientOrderId`). */
  parameters: string[];
  status: number;
  code: number;
}

export interface UnknownReferences {
  symbol?: UnknownReferenceRule;
  order?: UnknownReferenceRule;
  filledFrom: FactSource;
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
  const result: UnknownReferences = { filledFrom: readFactSource(object, at) };
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

export const unknownReferencesExtension = {
  key: "x-unknown-reference",
  name: "unknown-reference",
  on: "operation",
  field: "Operation.behaviour.unknownReferences",
  constrains: ["behaviour"],
  summary: "the error that answers an unknown symbol or order",
  read: readUnknownReferences,
} as const satisfies ExtensionDescriptor;
