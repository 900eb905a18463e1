// Readers shared by the behaviour extensions (x-list-order, x-cursor-paging, x-time-window,
// x-result-filter, x-limit, x-unknown-reference, x-order-arithmetic): small typed fields.
import { isObject, isStringList } from "../json.js";
import { describeValue, SpecModelError } from "../spec-model-error.js";

/** Where a behaviour fact comes from: the source document, or filled from the live API. */
export type FactSource = "source-document" | "live-api";

export function readObject(value: unknown, where: string, expected: string): Record<string, unknown> {
  if (!isObject(value)) throw new SpecModelError(where, expected, describeValue(value));
  return value;
}

export function readFactSource(object: Record<string, unknown>, where: string): FactSource {
  const value = object.filledFrom;
  if (value !== "source-document" && value !== "live-api") {
    throw new SpecModelError(
      `${where}/filledFrom`,
      '"source-document" or "live-api" (where the fact comes from)',
      describeValue(value),
    );
  }
  return value;
}

export function readString(object: Record<string, unknown>, key: string, where: string): string {
  const value = object[key];
  if (typeof value !== "string" || value === "")
    throw new SpecModelError(`${where}/${key}`, "a non-empty string", describeValue(value));
  return value;
}

export function readBoolean(object: Record<string, unknown>, key: string, where: string): boolean {
  const value = object[key];
  if (typeof value !== "boolean")
    throw new SpecModelError(`${where}/${key}`, "true or false", describeValue(value));
  return value;
}

export function readInteger(object: Record<string, unknown>, key: string, where: string): number {
  const value = object[key];
  if (typeof value !== "number" || !Number.isInteger(value))
    throw new SpecModelError(`${where}/${key}`, "an integer", describeValue(value));
  return value;
}

export function readOneOf<T extends string>(
  object: Record<string, unknown>,
  key: string,
  where: string,
  allowed: readonly T[],
): T {
  const value = object[key];
  if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) {
    throw new SpecModelError(`${where}/${key}`, `one of ${allowed.join(", ")}`, describeValue(value));
  }
  return value as T;
}

/** A JSON Pointer inside an answer or an item ("" is the whole value). */
export function readPointer(object: Record<string, unknown>, key: string, where: string): string {
  const value = object[key];
  if (typeof value !== "string" || (value !== "" && !value.startsWith("/")))
    throw new SpecModelError(
      `${where}/${key}`,
      'a JSON Pointer ("" or starting with "/")',
      describeValue(value),
    );
  return value;
}

/** The name of a parameter the operation declares. */
export function readParameterName(
  object: Record<string, unknown>,
  key: string,
  where: string,
  declared: ReadonlySet<string>,
): string {
  const value = readString(object, key, where);
  if (!declared.has(value))
    throw new SpecModelError(
      `${where}/${key}`,
      "the name of a parameter of the operation",
      describeValue(value),
    );
  return value;
}

export function readStrings(object: Record<string, unknown>, key: string, where: string): string[] {
  const value = object[key];
  if (!isStringList(value))
    throw new SpecModelError(`${where}/${key}`, "a list of strings", describeValue(value));
  return [...value];
}

/** A list of objects, each read by `read`. */
export function readList<T>(
  value: unknown,
  where: string,
  read: (item: Record<string, unknown>, at: string) => T,
): T[] {
  if (!Array.isArray(value) || value.length === 0)
    throw new SpecModelError(where, "a non-empty list", describeValue(value));
  return value.map((item, i) => read(readObject(item, `${where}/${i}`, "an object"), `${where}/${i}`));
}
