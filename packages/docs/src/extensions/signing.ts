// x-signing in the docs: the signing rule of each scheme that has one, as a table and its test vectors.
import type { SigningRule, SpecModel } from "@marketapi/spec/model";
import { code, codeBlock, table, text } from "../markdown.js";
import { SIGNING_SECTION_TITLE } from "./credentials.js";

export { SIGNING_SECTION_TITLE };

/** The `x-signing` rule of each security scheme that has one, as a table plus its test vectors. */
export function signingMarkdown(model: Pick<SpecModel, "signingRules">): string | undefined {
  const parts: string[] = [];
  for (const [name, rule] of model.signingRules) {
    parts.push(
      `The security scheme ${code(name)} carries the signing rule in ${code("x-signing")}:`,
      table(["Rule", "Value"], signingRows(rule)),
    );
    if (rule.testVectors.length > 0) {
      parts.push(`Test vectors (${rule.testVectors.length}): the signature of each payload with its secret.`);
      for (const vector of rule.testVectors) {
        const entries = Object.entries(vector);
        const width = Math.max(...entries.map(([key]) => key.length));
        const lines = entries.map(
          ([key, value]) => `${`${key}:`.padEnd(width + 2)}${value === "" ? '""' : value}`,
        );
        parts.push(codeBlock(lines.join("\n"), "text"));
      }
    }
  }
  if (parts.length === 0) return undefined;
  return [`## ${SIGNING_SECTION_TITLE}`, ...parts].join("\n\n");
}

function signingRows(rule: SigningRule): string[][] {
  const words = rule.words;
  const rows: Array<[string, string | undefined]> = [
    ["Algorithm", rule.algorithm === "" ? undefined : text(rule.algorithm)],
    ["Key", words.key && text(words.key)],
    ["Signed payload", words.payload && text(words.payload)],
    ["Encoding", words.encoding && text(words.encoding)],
    ["Output", words.output && text(words.output)],
    ["Signature parameter", code(rule.signatureParameter)],
    ["Placement", words.placement && text(words.placement)],
    [
      "Timestamp",
      facts(rule.timestampParameter, [
        ["unit", words.timestampUnit && text(words.timestampUnit)],
        [
          "required",
          words.timestampRequired === undefined ? undefined : code(String(words.timestampRequired)),
        ],
      ]),
    ],
    [
      "Receive window",
      facts(rule.recvWindowParameter, [
        ["unit", words.recvWindowUnit && text(words.recvWindowUnit)],
        ["default", String(rule.recvWindowDefault)],
        ["maximum", String(rule.recvWindowMaximum)],
        ["acceptedBy", words.recvWindowAcceptedBy && text(words.recvWindowAcceptedBy)],
      ]),
    ],
    ["Accepted when", words.acceptance && text(words.acceptance)],
    ["Errors", errorsMarkdown(rule)],
  ];
  return rows.filter((row): row is [string, string] => row[1] !== undefined && row[1] !== "");
}

/** "`timestamp`, unit: epoch milliseconds, required: `true`". */
function facts(parameter: string, rest: Array<[string, string | undefined]>): string {
  return [
    code(parameter),
    ...rest.filter(([, v]) => v !== undefined).map(([k, v]) => `${text(k)}: ${v}`),
  ].join(", ");
}

function errorsMarkdown(rule: SigningRule): string | undefined {
  const errors: Array<[number | undefined, string]> = [
    [rule.invalidSignatureCode, "invalid signature"],
    [rule.invalidTimestampCode, "invalid timestamp"],
  ];
  const stated = errors.filter((e): e is [number, string] => e[0] !== undefined);
  return stated.length === 0
    ? undefined
    : stated.map(([n, what]) => `${code(String(n))} ${text(what)}`).join(", ");
}
