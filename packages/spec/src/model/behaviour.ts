/**
 * The behaviour an operation promises beyond the shape of its answers, read from the behaviour
 * extensions (one module each under extensions/). The reference server honours it, the contract
 * tester checks it, the docs render it and the diff classifies changes to it.
 *
 * Everything here is derived from the registry (extensions/registry.ts): a behaviour extension is
 * one whose descriptor's `field` is `Operation.behaviour.<name>`, and `Behaviour.<name>` is what
 * its reader returns. A new behaviour extension needs its module and its registry entry only.
 */
import type { ExtensionDescriptor } from "./extensions/extension.js";
import { EXTENSIONS, type RegisteredExtension } from "./extensions/registry.js";
import type { JsonObject } from "./json.js";

const FIELD_PREFIX = "Operation.behaviour.";

/** The registered extensions whose typed value lives on `Operation.behaviour`. */
type BehaviourExtension = Extract<RegisteredExtension, { field: `${typeof FIELD_PREFIX}${string}` }>;
type FieldOf<E> = E extends { field: `${typeof FIELD_PREFIX}${infer Name}` } ? Name : never;

/** The behaviour extensions' typed values, each under its field name (`listOrder` for x-list-order). */
export type Behaviour = {
  [E in BehaviourExtension as FieldOf<E>]?: NonNullable<ReturnType<E["read"]>>;
};

/** A behaviour extension's reader: the raw value, the operation's pointer and its declared parameters. */
type BehaviourReader = (value: unknown, pointer: string, declared: ReadonlySet<string>) => unknown;

const behaviourExtensions = EXTENSIONS.filter((extension) => extension.field.startsWith(FIELD_PREFIX));
const fieldName = (extension: ExtensionDescriptor) =>
  extension.field.slice(FIELD_PREFIX.length) as keyof Behaviour;

/** The behaviour extensions, by key: what each reads into (`"x-list-order": "listOrder"`). */
export const BEHAVIOUR_EXTENSIONS = Object.fromEntries(
  behaviourExtensions.map((extension) => [extension.key, fieldName(extension)]),
) as Readonly<Record<BehaviourExtension["key"], keyof Behaviour>>;

export function readBehaviour(raw: JsonObject, pointer: string, declared: ReadonlySet<string>): Behaviour {
  const behaviour: Record<string, unknown> = {};
  for (const extension of behaviourExtensions) {
    const value = (extension.read as BehaviourReader)(raw[extension.key], pointer, declared);
    if (value !== undefined) behaviour[fieldName(extension)] = value;
  }
  return behaviour as Behaviour;
}
