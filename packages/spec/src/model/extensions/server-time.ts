// x-server-time: the operation that answers the server's clock, and where (docs/extensions.md).

import { type FactSource, readFactSource, readObject, readPointer } from "./behaviour-fields.js";
import type { ExtensionDescriptor } from "./extension.js";

/** The answer of this operation holds the server's time, in epoch milliseconds, at `field`. */
export interface ServerTime {
  field: string;
  filledFrom: FactSource;
}

export function readServerTime(value: unknown, where: string): ServerTime | undefined {
  if (value === undefined) return undefined;
  const at = `${where}/x-server-time`;
  const object = readObject(value, at, "an object with field and filledFrom");
  return { field: readPointer(object, "field", at), filledFrom: readFactSource(object, at) };
}

export const serverTimeExtension = {
  key: "x-server-time",
  name: "server-time",
  on: "operation",
  field: "Operation.behaviour.serverTime",
  constrains: ["docs"],
  summary:
    "the answer's field that holds the server's clock (epoch ms): what signed requests' timestamps are checked against",
  read: readServerTime,
} as const satisfies ExtensionDescriptor;
