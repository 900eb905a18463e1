// Makes the spec's `x-` extensions visible in Redoc, which renders descriptions but not unknown
// extensions. A pure function from spec to spec: the input is never modified, and the extensions
// stay in place in the copy (only descriptions and `x-badges` are added).

import { type OperationEntry, operationEntries, segmentsOf } from "@marketapi/spec/model";
import { behaviourMarkdown } from "./behaviour/index.js";
import { isObject, type JsonObject, objectAt, stringAt, stringsAt } from "./json.js";
import { code, codeBlock, table, text } from "./markdown.js";

/** Title of the info section that explains the signing rule; operations refer to it by name. */
export const SIGNING_SECTION_TITLE = "Request signing";
export const AUTH_CLASSES_SECTION_TITLE = "Authentication classes";
export const OPERATIONS_SECTION_TITLE = "Operations";
export const FILLED_FROM_SECTION_TITLE = "Filled from the live API";

/** Known values of `x-parameter-placement`, in words. Other values are shown as they are. */
const PARAMETER_PLACEMENTS: Record<string, string> = {
  "query-or-form-body":
    "the query string or an `application/x-www-form-urlencoded` body, or split between them; a name sent in both takes the query value",
};

/** The kinds of choice an `x-order-type-rules` entry can require, in words. */
const ORDER_RULE_CHOICES: Record<string, string> = {
  exactlyOneOf: "exactly one of",
  atLeastOneOf: "at least one of",
};

/** Returns a copy of `document` whose descriptions state what its `x-` extensions say. */
export function surfaceVendorExtensions(document: JsonObject): JsonObject {
  const copy = structuredClone(document);
  const operations = operationEntries(copy);
  for (const entry of operations) annotateOperation(entry, copy);
  annotateInfo(copy, operations);
  return copy;
}

function annotateOperation({ operation, pointer }: OperationEntry, document: JsonObject): void {
  const before = [operationFactsMarkdown(operation, document)];
  const after = [
    orderTypeRulesMarkdown(operation["x-order-type-rules"]),
    parameterConditionsMarkdown(operation["x-parameter-conditions"]),
    mutuallyExclusiveMarkdown(operation["x-mutually-exclusive"]),
    responseVariantsMarkdown(operation["x-response-variant-by"]),
    behaviourMarkdown(operation, pointer, document),
  ].filter((part): part is string => part !== undefined);
  const description = stringAt(operation.description)?.trim();
  operation.description = [...before, ...(description ? [description] : []), ...after].join("\n\n");

  // A badge next to the title (and in the sidebar) for the classes that need credentials.
  const authClass = stringAt(operation["x-auth-class"]);
  if (authClass !== undefined && authClass !== "none") {
    const badges = Array.isArray(operation["x-badges"]) ? operation["x-badges"] : [];
    operation["x-badges"] = [...badges, { name: `auth: ${authClass}`, position: "after" }];
  }
}

/** The list shown first in every operation: auth class, credentials, weight, parameter placement. */
export function operationFactsMarkdown(operation: JsonObject, document: JsonObject): string {
  const lines: string[] = [];
  const authClass = stringAt(operation["x-auth-class"]);
  const credentials = credentialsMarkdown(operation, document);
  if (authClass !== undefined) lines.push(`- **Authentication class:** ${code(authClass)}`);
  lines.push(`- **Credentials:** ${credentials}`);
  if (operation["x-weight"] !== undefined) {
    lines.push(`- **Request weight:** ${valueMarkdown(operation["x-weight"])}`);
  }
  const placement = operation["x-parameter-placement"];
  if (placement !== undefined) {
    const known = typeof placement === "string" ? PARAMETER_PLACEMENTS[placement] : undefined;
    lines.push(
      `- **Parameters sent in:** ${known ? `${known} (${code(placement as string)})` : codeValue(placement)}`,
    );
  }
  return lines.join("\n");
}

/** What a caller must send, from the operation's security requirements (or the document's). */
export function credentialsMarkdown(operation: JsonObject, document: JsonObject): string {
  const security = operation.security ?? document.security;
  if (!Array.isArray(security)) return "not stated by the spec";
  const alternatives = security.filter(isObject).map((requirement) => Object.keys(requirement));
  if (alternatives.length === 0 || alternatives.every((names) => names.length === 0)) {
    return "none (no API key, no signature)";
  }
  const schemes = objectAt(objectAt(document.components).securitySchemes);
  const signs = (name: string) => isObject(objectAt(schemes[name])["x-signing"]);
  const signing = alternatives.flat().find(signs);
  const inForm = operation["x-parameter-placement"] === "query-or-form-body";
  const described = alternatives
    .filter((names) => names.length > 0)
    .map((names) => {
      const parts = names.map((name) => schemeMarkdown(name, schemes[name]));
      // An alternative without the signing scheme, next to one with it, on an operation that takes a
      // form body: the signature travels in the body, where an apiKey scheme cannot be declared.
      if (signing !== undefined && inForm && !names.some(signs)) {
        const algorithm = stringAt(objectAt(objectAt(schemes[signing])["x-signing"]).algorithm) ?? "";
        const field = stringAt(objectAt(schemes[signing]).name) ?? signing;
        parts.push(
          `an ${text(algorithm)} signature in the ${code(field)} field of the form body (see ${SIGNING_SECTION_TITLE})`,
        );
      }
      return parts.join(" and ");
    })
    .join("; or ");
  // An empty requirement among others: the credentials are accepted, not required.
  const optional = alternatives.some((names) => names.length === 0);
  return optional ? `none required; ${described} is accepted (optional)` : described;
}

function schemeMarkdown(name: string, scheme: unknown): string {
  if (!isObject(scheme)) return code(name);
  const signing = objectAt(scheme["x-signing"]);
  const where = stringAt(scheme.in);
  const param = stringAt(scheme.name);
  if (stringAt(signing.algorithm) !== undefined) {
    const carrier = param ? ` in the ${code(param)} parameter` : "";
    return `an ${text(stringAt(signing.algorithm) ?? "")} signature${carrier} (see ${SIGNING_SECTION_TITLE})`;
  }
  if (stringAt(scheme.type) === "apiKey" && param && where) {
    return `an API key in the ${code(param)} ${where === "header" ? "header" : `${where} parameter`}`;
  }
  if (stringAt(scheme.type) === "http") return `HTTP ${text(stringAt(scheme.scheme) ?? "")} authentication`;
  return code(name);
}

/**
 * `x-order-type-rules` as a table, one row per order type: what is required (names, and the
 * groups to choose from: exactly / at least one of), what is forbidden, then any other kind of
 * rule as it is. Plain text in three columns, so that Redoc's narrow middle column wraps it well.
 */
export function orderTypeRulesMarkdown(rules: unknown): string | undefined {
  if (!isObject(rules) || Object.keys(rules).length === 0) return undefined;
  const entries = Object.entries(rules).map(([type, rule]) => [type, objectAt(rule)] as const);
  const known = new Set(["required", "forbidden", ...Object.keys(ORDER_RULE_CHOICES)]);
  const others = [...new Set(entries.flatMap(([, rule]) => Object.keys(rule)))].filter(
    (key) => !known.has(key),
  );
  const headers = ["Order type", "Required", "Forbidden", ...others.map(code)];
  const rows = entries.map(([type, rule]) => [
    text(type),
    requiredText(rule),
    namesText(rule.forbidden),
    ...others.map((key) => (rule[key] === undefined ? "–" : codeValue(rule[key]))),
  ]);
  return `**Parameters per order type** (${code("x-order-type-rules")}):\n\n${table(headers, rows)}`;
}

function namesText(value: unknown): string {
  const names = stringsAt(value);
  return names.length === 0 ? "–" : text(names.join(", "));
}

/** `timeInForce, quantity, price; at least one of stopPrice, trailingDelta`. */
function requiredText(rule: JsonObject): string {
  const parts = stringsAt(rule.required).length > 0 ? [namesText(rule.required)] : [];
  for (const [key, phrase] of Object.entries(ORDER_RULE_CHOICES)) {
    const groups = Array.isArray(rule[key]) ? (rule[key] as unknown[]) : [];
    for (const group of groups) parts.push(`${phrase} ${text(stringsAt(group).join(", "))}`);
  }
  return parts.length === 0 ? "–" : parts.join("; ");
}

/** `x-mutually-exclusive` as a list: "at most one of `symbol`, `symbols`". */
export function mutuallyExclusiveMarkdown(groups: unknown): string | undefined {
  if (!Array.isArray(groups) || groups.length === 0) return undefined;
  const lines = groups.map((group) =>
    Array.isArray(group)
      ? `- at most one of ${group.map((name) => codeValue(name)).join(", ")}`
      : `- ${codeValue(group)}`,
  );
  return `**Parameters that cannot be combined** (${code("x-mutually-exclusive")}):\n\n${lines.join("\n")}`;
}

/** `x-parameter-conditions` as a list: "when `a` is sent, `b` must be `X`". */
export function parameterConditionsMarkdown(conditions: unknown): string | undefined {
  if (!Array.isArray(conditions) || conditions.length === 0) return undefined;
  const lines = conditions.map((condition) => {
    const when = isObject(condition) ? stringAt(condition.when) : undefined;
    const require = isObject(condition) ? condition.require : undefined;
    if (when === undefined || !isObject(require)) return `- ${codeValue(condition)}`;
    const demands = Object.entries(require).map(
      ([name, value]) => `${code(name)} must be ${codeValue(value)}`,
    );
    return `- When ${code(when)} is sent, ${demands.join(" and ")}.`;
  });
  return `**Conditions between parameters** (${code("x-parameter-conditions")}):\n\n${lines.join("\n")}`;
}

/**
 * `x-response-variant-by` as a table from the parameter's value (or its presence, with
 * `whenPresent`/`whenAbsent`) to the response schema.
 */
export function responseVariantsMarkdown(variantBy: unknown): string | undefined {
  if (!isObject(variantBy)) return undefined;
  const parameter = stringAt(variantBy.parameter);
  const byPresence = variantBy.whenPresent !== undefined || variantBy.whenAbsent !== undefined;
  const variants = byPresence
    ? { sent: variantBy.whenPresent, "not sent": variantBy.whenAbsent }
    : objectAt(variantBy.variants);
  if (parameter === undefined || Object.keys(variants).length === 0) return undefined;
  const rows = Object.entries(variants).map(([value, ref]) => [
    byPresence ? text(value) : code(value),
    typeof ref === "string" ? code(segmentsOf(ref).at(-1) ?? ref) : codeValue(ref),
  ]);
  return `**Response shape by ${code(parameter)}** (${code("x-response-variant-by")}):\n\n${table(
    [code(parameter), "Response schema"],
    rows,
  )}`;
}

function annotateInfo(document: JsonObject, operations: OperationEntry[]): void {
  const info = objectAt(document.info);
  document.info = info;
  const description = stringAt(info.description)?.trim() ?? "";
  const overview = `## ${OPERATIONS_SECTION_TITLE}\n\n${operationsOverviewMarkdown(operations)}`;
  // The overview goes before the first heading, so it is the first thing a reader sees.
  const firstHeading = description.search(/^## /m);
  const intro = firstHeading === -1 ? description : description.slice(0, firstHeading).trim();
  const rest = firstHeading === -1 ? "" : description.slice(firstHeading).trim();
  const appended = [
    authClassesMarkdown(operations, document),
    signingMarkdown(document),
    filledFromMarkdown(document["x-filled-from"]),
  ].filter((part): part is string => part !== undefined);
  info.description = [intro, overview, rest, ...appended].filter((part) => part !== "").join("\n\n");
}

/**
 * One row per operation: summary, then method and path. Two columns only, so that paths do not
 * break inside names in Redoc's narrow middle column; classes and weights are listed per operation.
 */
export function operationsOverviewMarkdown(operations: OperationEntry[]): string {
  const rows = operations.map(({ path, method, operation }) => [
    text(stringAt(operation.summary) ?? stringAt(operation.operationId) ?? ""),
    `**${method.toUpperCase()}** ${code(path)}`,
  ]);
  return table(["Operation", "Request"], rows);
}

/** The auth classes (`x-auth-class`) found on the operations, with credentials and members. */
export function authClassesMarkdown(operations: OperationEntry[], document: JsonObject): string | undefined {
  const classes = new Map<string, OperationEntry[]>();
  for (const entry of operations) {
    const authClass = stringAt(entry.operation["x-auth-class"]);
    if (authClass === undefined) continue;
    classes.set(authClass, [...(classes.get(authClass) ?? []), entry]);
  }
  if (classes.size === 0) return undefined;
  const items = [...classes].map(([authClass, members]) => {
    const credentials = [...new Set(members.map((m) => credentialsMarkdown(m.operation, document)))].join(
      "; or, for some, ",
    );
    const ids = members.map((m) => code(stringAt(m.operation.operationId) ?? `${m.method} ${m.path}`));
    return `- ${code(authClass)}: ${credentials}. Operations: ${ids.join(", ")}.`;
  });
  return [
    `## ${AUTH_CLASSES_SECTION_TITLE}`,
    `Every operation declares its authentication class in ${code("x-auth-class")}; the credentials follow from its security requirement.`,
    items.join("\n"),
  ].join("\n\n");
}

const SIGNING_LABELS: Record<string, string> = {
  algorithm: "Algorithm",
  key: "Key",
  payload: "Signed payload",
  encoding: "Encoding",
  output: "Output",
  parameter: "Signature parameter",
  placement: "Placement",
  timestamp: "Timestamp",
  recvWindow: "Receive window",
  acceptance: "Accepted when",
  errors: "Errors",
};

/** The `x-signing` rule of each security scheme that has one, as a table plus its test vectors. */
export function signingMarkdown(document: JsonObject): string | undefined {
  const schemes = objectAt(objectAt(document.components).securitySchemes);
  const parts: string[] = [];
  for (const [name, scheme] of Object.entries(schemes)) {
    const signing = objectAt(objectAt(scheme)["x-signing"]);
    if (Object.keys(signing).length === 0) continue;
    const rows = Object.entries(signing)
      .filter(([key]) => key !== "testVectors")
      .map(([key, value]) => [SIGNING_LABELS[key] ?? code(key), signingValueMarkdown(key, value)]);
    parts.push(
      `The security scheme ${code(name)} carries the signing rule in ${code("x-signing")}:`,
      table(["Rule", "Value"], rows),
    );
    const vectors = Array.isArray(signing.testVectors) ? signing.testVectors.filter(isObject) : [];
    if (vectors.length > 0) {
      parts.push(`Test vectors (${vectors.length}): the signature of each payload with its secret.`);
      for (const vector of vectors) {
        const width = Math.max(...Object.keys(vector).map((k) => k.length));
        const lines = Object.entries(vector).map(
          ([key, value]) => `${`${key}:`.padEnd(width + 2)}${value === "" ? '""' : String(value)}`,
        );
        parts.push(codeBlock(lines.join("\n"), "text"));
      }
    }
  }
  if (parts.length === 0) return undefined;
  return [`## ${SIGNING_SECTION_TITLE}`, ...parts].join("\n\n");
}

function signingValueMarkdown(key: string, value: unknown): string {
  if (key === "errors" && isObject(value)) {
    return Object.entries(value)
      .map(([name, errorCode]) => `${code(String(errorCode))} ${text(humanize(name))}`)
      .join(", ");
  }
  if (isObject(value)) {
    return Object.entries(value)
      .map(([k, v]) => (k === "parameter" ? code(String(v)) : `${text(k)}: ${valueMarkdown(v)}`))
      .join(", ");
  }
  return key === "parameter" && typeof value === "string" ? code(value) : valueMarkdown(value);
}

/** The root `x-filled-from`: where the parts the source document left open were taken from. */
export function filledFromMarkdown(filledFrom: unknown): string | undefined {
  if (!isObject(filledFrom)) return undefined;
  const source = stringAt(filledFrom.source);
  const parts = stringsAt(filledFrom.parts);
  if (source === undefined && parts.length === 0) return undefined;
  return [
    `## ${FILLED_FROM_SECTION_TITLE}`,
    `${source ? `Source: ${text(source)}. ` : ""}These parts were filled from it (${code("x-filled-from")}):`,
    parts.map((part) => `- ${text(part)}`).join("\n"),
  ].join("\n\n");
}

/** A value in prose: strings and numbers as text, anything else as JSON in a code span. */
function valueMarkdown(value: unknown): string {
  if (typeof value === "string") return text(value);
  if (typeof value === "number") return String(value);
  return codeValue(value);
}

/** A value as a code span: strings as they are, anything else as JSON. */
function codeValue(value: unknown): string {
  return code(typeof value === "string" ? value : JSON.stringify(value));
}

function humanize(camel: string): string {
  return camel.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
}
