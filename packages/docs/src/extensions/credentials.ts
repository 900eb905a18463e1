// What a caller must send, in words: the operation's security requirements (auth class aside),
// the schemes they name, and the x-signing rule of a signing scheme.
import type { Operation, SpecModel } from "@marketapi/spec/model";
import { isObject, objectAt, stringAt } from "../json.js";
import { code, text } from "../markdown.js";

/** Title of the info section that explains the signing rule; operations refer to it by name. */
export const SIGNING_SECTION_TITLE = "Request signing";

/** What a caller must send, from the operation's effective security requirements. */
export function credentialsMarkdown(
  operation: Pick<Operation, "security" | "acceptsFormBody">,
  model: Pick<SpecModel, "document" | "signingRules">,
): string {
  const security = operation.security;
  if (security === undefined) return "not stated by the spec";
  const alternatives = security.map((requirement) => Object.keys(requirement));
  if (alternatives.length === 0 || alternatives.every((names) => names.length === 0)) {
    // "No signature" means something only to readers of an API that signs requests.
    return model.signingRules.size > 0 ? "none (no API key, no signature)" : "none";
  }
  const schemes = objectAt(objectAt(model.document.components).securitySchemes);
  const signs = (name: string) => model.signingRules.has(name);
  const signing = alternatives.flat().find(signs);
  const described = alternatives
    .filter((names) => names.length > 0)
    .map((names) => {
      const parts = names.map((name) => schemeMarkdown(name, schemes[name], model));
      // An alternative without the signing scheme, next to one with it, on an operation that takes a
      // form body: the signature travels in the body, where an apiKey scheme cannot be declared.
      if (signing !== undefined && operation.acceptsFormBody && !names.some(signs)) {
        const algorithm = model.signingRules.get(signing)?.algorithm ?? "";
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

function schemeMarkdown(name: string, value: unknown, model: Pick<SpecModel, "signingRules">): string {
  if (!isObject(value)) return code(name);
  const scheme = value;
  const where = stringAt(scheme.in);
  const param = stringAt(scheme.name);
  const rule = model.signingRules.get(name);
  if (rule !== undefined && rule.algorithm !== "") {
    const carrier = param ? ` in the ${code(param)} parameter` : "";
    return `an ${text(rule.algorithm)} signature${carrier} (see ${SIGNING_SECTION_TITLE})`;
  }
  if (stringAt(scheme.type) === "apiKey" && param && where) {
    return `an API key in the ${code(param)} ${where === "header" ? "header" : `${where} parameter`}`;
  }
  if (stringAt(scheme.type) === "http") return `HTTP ${text(stringAt(scheme.scheme) ?? "")} authentication`;
  return code(name);
}
