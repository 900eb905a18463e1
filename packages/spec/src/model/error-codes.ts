/**
 * The error codes the spec states for one operation, from every extension that names one:
 * x-refusals (the rules that apply to it, and their codes by parameter), x-unknown-reference,
 * x-time-window (a window too wide) and x-signing (a bad signature or timestamp, for signed
 * operations). Generated clients type an operation's errors with them.
 */
import { refusalRulesStatedBy } from "./extensions/refusals.js";
import type { SpecModel } from "./index.js";
import type { Operation } from "./operations.js";
import { resolveRef } from "./refs.js";

/** A code the spec states for an operation, with the rules that answer it. */
export interface StatedCode {
  code: number;
  /** The HTTP status it comes with, where the spec says. */
  status?: number;
  /** What answers it: refusal rule names (`filter-failure`), `unknown-symbol`, `window-too-wide`, `invalid-timestamp`, … */
  rules: string[];
}

/** Rules x-refusals may give without naming operations that arise wherever a parameter is sent. */
const WHEREVER_PARAMETERS = new Set(["duplicate-parameter"]);

/** The codes the spec states for `operation`, in code order (descending: -1000 before -2010). */
export function errorCodesOf(
  model: Pick<SpecModel, "document" | "refusals" | "signing">,
  operation: Operation,
): StatedCode[] {
  const codes = new Map<number, StatedCode>();
  const add = (code: number, status: number | undefined, rule: string) => {
    const entry = codes.get(code) ?? { code, rules: [] };
    if (status !== undefined && entry.status === undefined) entry.status = status;
    if (!entry.rules.includes(rule)) entry.rules.push(rule);
    codes.set(code, entry);
  };
  const resolve = (schema: unknown) => resolveRef(model.document, schema, operation.pointer);
  const stated = refusalRulesStatedBy(model, operation, resolve);
  const declared = new Set(operation.parameters.map((p) => p.name));
  // A parameter sent twice is a query's or a body's fault; a header sent twice is one header.
  const repeatable = operation.parameters.some((p) => p.in !== "header");
  for (const rule of model.refusals?.rules ?? []) {
    const applies = rule.operations
      ? rule.operations.includes(operation.operationId)
      : stated.has(rule.rule) || (WHEREVER_PARAMETERS.has(rule.rule) && repeatable);
    if (!applies) continue;
    add(rule.code, rule.status, rule.rule);
    for (const [parameter, code] of Object.entries(rule.byParameter))
      if (declared.has(parameter)) add(code, rule.status, rule.rule);
  }
  const references = operation.behaviour.unknownReferences;
  if (references?.symbol) add(references.symbol.code, references.symbol.status, "unknown-symbol");
  if (references?.order) add(references.order.code, references.order.status, "unknown-order");
  const window = operation.behaviour.timeWindow;
  if (window?.tooWideCode !== undefined) add(window.tooWideCode, undefined, "window-too-wide");
  const signing = operation.signed ? (operation.signing ?? model.signing) : undefined;
  if (signing?.invalidSignatureCode !== undefined)
    add(signing.invalidSignatureCode, undefined, "invalid-signature");
  if (signing?.invalidTimestampCode !== undefined)
    add(signing.invalidTimestampCode, undefined, "invalid-timestamp");
  return [...codes.values()].sort((a, b) => b.code - a.code);
}
