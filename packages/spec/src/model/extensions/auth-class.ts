// x-auth-class: the authentication class of an operation (docs/extensions.md).
import { describeValue, SpecModelError } from "../spec-model-error.js";
import type { ExtensionDescriptor } from "./extension.js";

export const AUTH_CLASSES = ["none", "market_data", "trade", "user_data"] as const;
export type AuthClass = (typeof AUTH_CLASSES)[number];

export function readAuthClass(value: unknown, where: string): AuthClass {
  if (!(AUTH_CLASSES as readonly unknown[]).includes(value)) {
    throw new SpecModelError(
      `${where}/x-auth-class`,
      `one of ${AUTH_CLASSES.join(", ")}`,
      describeValue(value),
    );
  }
  return value as AuthClass;
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
  summary: "the authentication class of an operation: none, market_data, trade or user_data",
  read: readAuthClass,
} as const satisfies ExtensionDescriptor;
