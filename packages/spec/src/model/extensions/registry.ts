/**
 * The registry of extensions: every `x-` key the spec uses, with its typed reader and what it
 * constrains. A plain list of descriptors, one module per extension; to add an extension, add its
 * module beside these and one entry here (docs/architecture.md, "How to add an x- extension").
 */
import { authClassExtension } from "./auth-class.js";
import { cursorPagingExtension } from "./cursor-paging.js";
import { epochTimeExtension } from "./epoch-time.js";
import type { ExtensionDescriptor } from "./extension.js";
import { filledFromExtension } from "./filled-from.js";
import { limitExtension } from "./limit.js";
import { listOrderExtension } from "./list-order.js";
import { mutuallyExclusiveExtension } from "./mutually-exclusive.js";
import { orderArithmeticExtension } from "./order-arithmetic.js";
import { orderTypeRulesExtension } from "./order-type-rules.js";
import { outcomeLookupExtension } from "./outcome-lookup.js";
import { parameterConditionsExtension } from "./parameter-conditions.js";
import { parameterPlacementExtension } from "./parameter-placement.js";
import { refusalsExtension } from "./refusals.js";
import { relationsExtension } from "./relations.js";
import { responseVariantByExtension } from "./response-variant-by.js";
import { resultFiltersExtension } from "./result-filter.js";
import { serverTimeExtension } from "./server-time.js";
import { signingExtension } from "./signing.js";
import { timeWindowExtension } from "./time-window.js";
import { unknownReferencesExtension } from "./unknown-reference.js";
import { weightExtension } from "./weight.js";
import { wirePatternExtension } from "./wire-pattern.js";

const REGISTERED = [
  authClassExtension,
  signingExtension,
  weightExtension,
  parameterPlacementExtension,
  orderTypeRulesExtension,
  parameterConditionsExtension,
  mutuallyExclusiveExtension,
  responseVariantByExtension,
  wirePatternExtension,
  filledFromExtension,
  listOrderExtension,
  cursorPagingExtension,
  timeWindowExtension,
  resultFiltersExtension,
  limitExtension,
  unknownReferencesExtension,
  orderArithmeticExtension,
  refusalsExtension,
  relationsExtension,
  outcomeLookupExtension,
  serverTimeExtension,
  epochTimeExtension,
] as const satisfies readonly ExtensionDescriptor[];

/** A registered extension's descriptor with its literal types, for types derived from the registry. */
export type RegisteredExtension = (typeof REGISTERED)[number];

export const EXTENSIONS: readonly ExtensionDescriptor[] = REGISTERED;

/** The registered extension with this key. */
export function extensionByKey(key: string): ExtensionDescriptor | undefined {
  return EXTENSIONS.find((extension) => extension.key === key);
}
