// x-auth-class: the authentication class of an operation (docs/extensions.md).
import { describeValue, SpecModelError } from "../spec-model-error.js";
import type { ExtensionDescriptor } from "./extension.js";

export const AUTH_CLASSES = ["none", "market_data", "trade", "user_data"] as const;
export type AuthClass = (typeof AUTH_CLASSES)[number];

/**
 * The operation's x-auth-class; when it is absent, the class its security implies (a fork or a
 * public spec that never heard of x-auth-class): see deriveAuthClass.
 */
export function readAuthClass(value: unknown, where: string, derived?: () => AuthClass): AuthClass {
  if (value === undefined && derived) return derived();
  if (!(AUTH_CLASSES as readonly unknown[]).includes(value)) {
    throw new SpecModelError(
      `${where}/x-auth-class`,
      `one of ${AUTH_CLASSES.join(", ")}`,
      describeValue(value),
    );
  }
  return value as AuthClass;
}

/**
 * The class an operation without x-auth-class has, from its effective security requirements:
 * `none` when it has none (or only the empty one, `{}`); `user_data` (GET, HEAD) or `trade` (other
 * methods) when one names a scheme with x-signing; else `market_data`, whose credentials are those
 * the requirements name (sent when the client has them).
 */
export function deriveAuthClass(
  requirements: readonly Readonly<Record<string, unknown>>[] | undefined,
  signingSchemes: ReadonlySet<string> | ReadonlyMap<string, unknown>,
  method: string,
): AuthClass {
  const named = (requirements ?? []).flatMap((requirement) => Object.keys(requirement));
  if (named.length === 0) return "none";
  if (named.some((name) => signingSchemes.has(name))) {
    return method === "get" || method === "head" ? "user_data" : "trade";
  }
  return "market_data";
}

/** Whether requests of the class are signed (the `x-signing` envelope): `trade` and `user_data`. */
export function isSignedClass(authClass: AuthClass): boolean {
  return authClass === "trade" || authClass === "user_data";
}

export const authClassExtension = {
  key: "x-auth-class",
  name: "auth-class",
  on: "operation",
  field: "Operation.authClass (and Operation.signed)",
  constrains: ["signing", "behaviour"],
  summary:
    "the authentication class of an operation: none, market_data, trade or user_data (derived from its security when absent)",
  read: readAuthClass,
} as const satisfies ExtensionDescriptor;
