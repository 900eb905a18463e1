/**
 * What the registry (registry.ts) says about one `x-` extension. Each extension's module exports
 * one descriptor beside its reader; the registry lists them. Packages find an extension's home by
 * `name`, its file name in every package (see docs/architecture.md, "How to add an x- extension").
 */

/** The object of the document that carries the extension. */
export type ExtensionHost = "document" | "operation" | "security-scheme" | "schema";

/**
 * What an extension constrains, and so which packages must handle it (the completeness test,
 * `scripts/test/extension-completeness.test.ts`, holds each package to it):
 * - `requests`: what a valid request is; the generated request validators enforce it
 *   (a rule in `packages/codegen/src/validators/request-rules/<name>.ts`);
 * - `responses`: what a valid response is;
 * - `signing`: how requests are authenticated and signed;
 * - `behaviour`: what a server must do; a contract check verifies it (a module under
 *   `packages/contract/src/checks/` whose `covers` lists the key);
 * - `docs`: nothing a program checks; documentation only.
 * Every extension has a diff rule (`packages/diff/src/extensions/<name>.ts`) and a docs renderer
 * that reads the typed model (`packages/docs/src/extensions/<name>.ts`).
 */
export type ExtensionConstraint = "requests" | "responses" | "signing" | "behaviour" | "docs";

export interface ExtensionDescriptor {
  /** The key as the spec writes it. */
  readonly key: `x-${string}`;
  /** Kebab-case module name: the file name of the extension's home in each package. */
  readonly name: string;
  readonly on: ExtensionHost;
  /** Where the model holds the typed value (`Operation.authClass`, `SpecModel.signingRules`, ...). */
  readonly field: string;
  readonly constrains: readonly ExtensionConstraint[];
  /** One line on what it states, for people and error messages. */
  readonly summary: string;
  /**
   * The typed reader: the checked value from the raw one (a SpecModelError naming the pointer on
   * a bad value). Its parameters differ by host, so it is typed here only as a function.
   */
  readonly read: (...args: never[]) => unknown;
}
