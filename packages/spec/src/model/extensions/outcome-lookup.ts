// x-outcome-lookup: how the outcome of a request that may have been carried out is learnt without
// sending it again (docs/extensions.md).

import { describeValue, SpecModelError } from "../spec-model-error.js";
import {
  type FactSource,
  readFactSource,
  readObject,
  readParameterName,
  readString,
} from "./behaviour-fields.js";
import type { ExtensionDescriptor } from "./extension.js";

/**
 * A request of an operation that changes state (placing an order) whose answer never came, or
 * came as a 5xx, may or may not have been carried out. `operation` looks its result up: sent with
 * `parameters` (each a parameter of the lookup, taking the value of a parameter of the request),
 * it answers the result when the request was carried out, and refuses with its unknown-order code
 * (its `x-unknown-reference`) when it was not. `key` is the request's parameter that names its
 * result uniquely (a client order id); a client that sends none chooses one.
 */
export interface OutcomeLookup {
  operation: string;
  key: string;
  /** Lookup parameter → the request's parameter whose value it takes. */
  parameters: Record<string, string>;
  filledFrom: FactSource;
}

export function readOutcomeLookup(
  value: unknown,
  where: string,
  declared: ReadonlySet<string>,
): OutcomeLookup | undefined {
  if (value === undefined) return undefined;
  const at = `${where}/x-outcome-lookup`;
  const object = readObject(value, at, "an object with operation, key, parameters and filledFrom");
  const key = readParameterName(object, "key", at, declared);
  const parameters = readObject(
    object.parameters,
    `${at}/parameters`,
    "an object: each parameter of the lookup, the name of the request's parameter it takes",
  );
  const mapped: Record<string, string> = {};
  for (const [name, from] of Object.entries(parameters)) {
    if (typeof from !== "string" || !declared.has(from))
      throw new SpecModelError(
        `${at}/parameters/${name}`,
        "the name of a parameter of the operation",
        describeValue(from),
      );
    mapped[name] = from;
  }
  if (!Object.values(mapped).includes(key))
    throw new SpecModelError(
      `${at}/parameters`,
      `a lookup parameter that takes the key (${key})`,
      describeValue(parameters),
    );
  return {
    operation: readString(object, "operation", at),
    key,
    parameters: mapped,
    filledFrom: readFactSource(object, at),
  };
}

export const outcomeLookupExtension = {
  key: "x-outcome-lookup",
  name: "outcome-lookup",
  on: "operation",
  field: "Operation.behaviour.outcomeLookup",
  constrains: ["docs"],
  summary:
    "how the outcome of a request whose answer was lost is looked up (the lookup operation, and the parameters it takes from the request) before it is ever sent again",
  read: readOutcomeLookup,
} as const satisfies ExtensionDescriptor;
