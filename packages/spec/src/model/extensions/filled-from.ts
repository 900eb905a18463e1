// x-filled-from: the public source used for what the source document leaves open (docs/extensions.md).
import { isObject, isStringList } from "../json.js";
import { describeValue, SpecModelError } from "../spec-model-error.js";
import type { ExtensionDescriptor } from "./extension.js";

export interface FilledFrom {
  /** The public source, in words. */
  source: string;
  /** The parts of the spec taken from it. */
  parts: string[];
}

/** The document's `x-filled-from`; undefined when absent. */
export function readFilledFrom(value: unknown): FilledFrom | undefined {
  if (value === undefined) return undefined;
  const ok =
    isObject(value) &&
    (value.source === undefined || typeof value.source === "string") &&
    (value.parts === undefined || isStringList(value.parts));
  if (!ok) throw new SpecModelError("/x-filled-from", "an object { source, parts }", describeValue(value));
  return { source: value.source ?? "", parts: [...(value.parts ?? [])] };
}

export const filledFromExtension = {
  key: "x-filled-from",
  name: "filled-from",
  on: "document",
  field: "SpecModel.filledFrom",
  constrains: ["docs"],
  summary: "the public source of the parts the source document leaves open, and those parts",
  read: readFilledFrom,
} as const satisfies ExtensionDescriptor;
