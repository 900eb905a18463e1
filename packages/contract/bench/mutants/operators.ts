/**
 * The mutation operators: every place in a TypeScript source file where one small, typical
 * programming slip can be made, each as a text edit of the source (a range and its replacement).
 * The operators follow the usual set (StrykerJS's, with PIT's inline constants and statement
 * deletion): arithmetic, equality and relational boundaries, logical connectives, conditions
 * forced true or false, unary and update operators, boolean, string and numeric literals, a block
 * or a statement removed, a method swapped for its mirror or dropped, optional chaining, array
 * literals emptied. Only value code is mutated: types, imports and declarations of types are not
 * (a mutant that changes nothing the compiler emits is dropped later, when it is transpiled).
 */
import ts from "typescript";

export interface MutantEdit {
  /** The source file, relative to the package (src/engine/matching.ts). */
  file: string;
  operator: OperatorName;
  start: number;
  end: number;
  original: string;
  replacement: string;
  /** 1-based line and column of `start`. */
  line: number;
  column: number;
  /** The innermost named function, method or class around the edit ("" at top level). */
  scope: string;
}

export const OPERATORS = [
  "arithmetic",
  "equality",
  "relational",
  "logical",
  "assignment",
  "condition",
  "unary",
  "update",
  "boolean",
  "string",
  "number",
  "block",
  "statement",
  "method",
  "optional-chain",
  "array",
] as const;
export type OperatorName = (typeof OPERATORS)[number];

const K = ts.SyntaxKind;

/** Operator token → its mutations, by class. */
const BINARY: ReadonlyMap<ts.SyntaxKind, { operator: OperatorName; to: string[] }> = new Map([
  [K.PlusToken, { operator: "arithmetic", to: ["-"] }],
  [K.MinusToken, { operator: "arithmetic", to: ["+"] }],
  [K.AsteriskToken, { operator: "arithmetic", to: ["/"] }],
  [K.SlashToken, { operator: "arithmetic", to: ["*"] }],
  [K.PercentToken, { operator: "arithmetic", to: ["*"] }],
  [K.AsteriskAsteriskToken, { operator: "arithmetic", to: ["*"] }],
  [K.EqualsEqualsEqualsToken, { operator: "equality", to: ["!=="] }],
  [K.ExclamationEqualsEqualsToken, { operator: "equality", to: ["==="] }],
  [K.EqualsEqualsToken, { operator: "equality", to: ["!="] }],
  [K.ExclamationEqualsToken, { operator: "equality", to: ["=="] }],
  [K.LessThanToken, { operator: "relational", to: ["<=", ">="] }],
  [K.LessThanEqualsToken, { operator: "relational", to: ["<", ">"] }],
  [K.GreaterThanToken, { operator: "relational", to: [">=", "<="] }],
  [K.GreaterThanEqualsToken, { operator: "relational", to: [">", "<"] }],
  [K.AmpersandAmpersandToken, { operator: "logical", to: ["||"] }],
  [K.BarBarToken, { operator: "logical", to: ["&&"] }],
  [K.QuestionQuestionToken, { operator: "logical", to: ["&&"] }],
  [K.PlusEqualsToken, { operator: "assignment", to: ["-="] }],
  [K.MinusEqualsToken, { operator: "assignment", to: ["+="] }],
  [K.AsteriskEqualsToken, { operator: "assignment", to: ["/="] }],
  [K.SlashEqualsToken, { operator: "assignment", to: ["*="] }],
  [K.QuestionQuestionEqualsToken, { operator: "assignment", to: ["&&="] }],
  [K.BarBarEqualsToken, { operator: "assignment", to: ["&&="] }],
  [K.AmpersandAmpersandEqualsToken, { operator: "assignment", to: ["||="] }],
]);

/** Methods swapped for their mirror image. */
const MIRRORED_METHODS: Readonly<Record<string, string>> = {
  min: "max",
  max: "min",
  some: "every",
  every: "some",
  startsWith: "endsWith",
  endsWith: "startsWith",
  toUpperCase: "toLowerCase",
  toLowerCase: "toUpperCase",
  padStart: "padEnd",
  padEnd: "padStart",
  floor: "ceil",
  ceil: "floor",
  indexOf: "lastIndexOf",
  lastIndexOf: "indexOf",
};
/** Methods whose call is replaced by its receiver (the call dropped). */
const DROPPED_METHODS = new Set(["filter", "sort", "reverse", "slice", "trim", "toSorted", "toReversed"]);

/** Nodes whose whole subtree is types or declarations the compiler erases. */
function erased(node: ts.Node): boolean {
  return (
    ts.isTypeNode(node) ||
    ts.isInterfaceDeclaration(node) ||
    ts.isTypeAliasDeclaration(node) ||
    ts.isImportDeclaration(node) ||
    ts.isExportDeclaration(node) ||
    ts.isImportEqualsDeclaration(node) ||
    ts.isModuleDeclaration(node) ||
    ts.isTypeParameterDeclaration(node) ||
    (ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === K.DeclareKeyword))
  );
}

/** A string that names something rather than being data: a property key, a directive. */
function stringIsName(node: ts.StringLiteralLike): boolean {
  const parent = node.parent;
  if (ts.isPropertyAssignment(parent) && parent.name === node) return true;
  if (ts.isPropertyDeclaration(parent) && parent.name === node) return true;
  if (ts.isMethodDeclaration(parent) && parent.name === node) return true;
  if (ts.isEnumMember(parent) && parent.name === node) return true;
  if (ts.isExpressionStatement(parent)) return true; // "use strict"
  if (ts.isCallExpression(parent) && parent.expression.kind === K.ImportKeyword) return true;
  if (ts.isExternalModuleReference(parent)) return true;
  return false;
}

function scopeName(node: ts.Node): string {
  for (let at: ts.Node | undefined = node.parent; at; at = at.parent) {
    if (
      (ts.isFunctionDeclaration(at) ||
        ts.isMethodDeclaration(at) ||
        ts.isClassDeclaration(at) ||
        ts.isGetAccessorDeclaration(at) ||
        ts.isSetAccessorDeclaration(at)) &&
      at.name
    ) {
      return at.name.getText();
    }
    if (ts.isConstructorDeclaration(at)) return "constructor";
    if ((ts.isArrowFunction(at) || ts.isFunctionExpression(at)) && ts.isVariableDeclaration(at.parent)) {
      return at.parent.name.getText();
    }
  }
  return "";
}

function numericMutation(text: string, bigint: boolean): string | undefined {
  const digits = text.replace(/_/g, "").replace(/n$/, "");
  let value: number;
  try {
    value = bigint ? Number(BigInt(digits)) : Number(digits);
  } catch {
    return undefined;
  }
  if (!Number.isFinite(value)) return undefined;
  const next = value === 1 ? 0 : value === 0 ? 1 : Number.isInteger(value) ? value + 1 : value * 2;
  if (bigint) return `${BigInt(Math.trunc(next))}n`;
  return String(next);
}

/** Every mutant of one source file, in source order. */
export function mutantsOf(file: string, text: string): MutantEdit[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const edits: MutantEdit[] = [];
  const add = (
    operator: OperatorName,
    node: ts.Node | { start: number; end: number },
    replacement: string,
  ) => {
    const start = "kind" in node ? node.getStart(source) : node.start;
    const end = node.end;
    const original = text.slice(start, end);
    if (original === replacement) return;
    const { line, character } = source.getLineAndCharacterOfPosition(start);
    const anchor = "kind" in node ? node : findNodeAt(source, start);
    edits.push({
      file,
      operator,
      start,
      end,
      original,
      replacement,
      line: line + 1,
      column: character + 1,
      scope: scopeName(anchor),
    });
  };

  const visit = (node: ts.Node): void => {
    if (erased(node)) return;
    mutateNode(node, add, source);
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(source, visit);
  return edits;
}

function findNodeAt(source: ts.SourceFile, position: number): ts.Node {
  let found: ts.Node = source;
  const visit = (node: ts.Node): void => {
    if (node.getStart(source) <= position && position < node.end) {
      found = node;
      ts.forEachChild(node, visit);
    }
  };
  ts.forEachChild(source, visit);
  return found;
}

type Add = (
  operator: OperatorName,
  node: ts.Node | { start: number; end: number },
  replacement: string,
) => void;

function mutateNode(node: ts.Node, add: Add, source: ts.SourceFile): void {
  if (ts.isBinaryExpression(node)) {
    const rule = BINARY.get(node.operatorToken.kind);
    if (rule) for (const to of rule.to) add(rule.operator, node.operatorToken, to);
    return;
  }
  if (
    ts.isIfStatement(node) ||
    ts.isConditionalExpression(node) ||
    ts.isWhileStatement(node) ||
    ts.isForStatement(node)
  ) {
    const condition = ts.isConditionalExpression(node)
      ? node.condition
      : ts.isForStatement(node)
        ? node.condition
        : node.expression;
    if (!condition) return;
    // A loop forced true never ends: only "false" for loops.
    const loop = ts.isWhileStatement(node) || ts.isForStatement(node);
    if (!loop) add("condition", condition, "true");
    add("condition", condition, "false");
    return;
  }
  if (ts.isPrefixUnaryExpression(node)) {
    if (node.operator === K.ExclamationToken || node.operator === K.MinusToken) {
      add("unary", { start: node.getStart(source), end: node.operand.getStart(source) }, "");
    } else if (node.operator === K.PlusPlusToken || node.operator === K.MinusMinusToken) {
      add(
        "update",
        { start: node.getStart(source), end: node.operand.getStart(source) },
        node.operator === K.PlusPlusToken ? "--" : "++",
      );
    }
    return;
  }
  if (ts.isPostfixUnaryExpression(node)) {
    add(
      "update",
      { start: node.operand.end, end: node.end },
      node.operator === K.PlusPlusToken ? "--" : "++",
    );
    return;
  }
  if (node.kind === K.TrueKeyword || node.kind === K.FalseKeyword) {
    add("boolean", node, node.kind === K.TrueKeyword ? "false" : "true");
    return;
  }
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
    if (stringIsName(node)) return;
    add("string", node, node.text === "" ? '"mutant"' : '""');
    return;
  }
  if (ts.isTemplateExpression(node)) {
    add("string", node, '""');
    return;
  }
  if (ts.isNumericLiteral(node) || ts.isBigIntLiteral(node)) {
    if (ts.isPropertyAssignment(node.parent) && node.parent.name === node) return;
    const to = numericMutation(node.getText(source), ts.isBigIntLiteral(node));
    if (to !== undefined) add("number", node, to);
    return;
  }
  if (ts.isBlock(node) && node.statements.length > 0) {
    add("block", node, "{}");
    return;
  }
  if (ts.isExpressionStatement(node) || ts.isThrowStatement(node)) {
    // "use strict" and similar directives are not statements worth removing.
    if (ts.isExpressionStatement(node) && ts.isStringLiteral(node.expression)) return;
    add("statement", node, ";");
    return;
  }
  if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
    const name = node.expression.name.text;
    const mirror = MIRRORED_METHODS[name];
    if (mirror) add("method", node.expression.name, mirror);
    if (DROPPED_METHODS.has(name)) {
      add("method", node, node.expression.expression.getText(source));
    }
  }
  if (
    (ts.isPropertyAccessExpression(node) ||
      ts.isElementAccessExpression(node) ||
      ts.isCallExpression(node)) &&
    node.questionDotToken
  ) {
    const dot = node.questionDotToken;
    add("optional-chain", dot, ts.isPropertyAccessExpression(node) ? "." : "");
    return;
  }
  if (ts.isArrayLiteralExpression(node) && node.elements.length > 0) {
    add("array", node, "[]");
  }
}

/** The source with one mutant applied. */
export function applyMutant(text: string, edit: Pick<MutantEdit, "start" | "end" | "replacement">): string {
  return text.slice(0, edit.start) + edit.replacement + text.slice(edit.end);
}
