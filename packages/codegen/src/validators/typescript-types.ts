/**
 * TypeScript declarations for a self-contained JSON Schema document such as the Endpoint
 * schema: the root and every object `$defs` entry become interfaces, primitive `$defs` are
 * written as their TypeScript type where used, and descriptions become doc comments. It covers
 * the keywords such documents use (type, properties, required, additionalProperties,
 * patternProperties of the form ^prefix(?:A|B)$, items, enum, const, $ref to #/$defs);
 * anything else is typed `unknown`, which never rejects a valid value.
 */
type Node = Record<string, unknown>;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function typesOfSchema(document: Node, rootName: string): string {
  const defs = (document.$defs ?? {}) as Record<string, Node>;
  const objectDefs = Object.keys(defs).filter((name) => isObjectSchema(defs[name]!));
  const typeName = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);
  const context = { defs, objectDefs: new Set(objectDefs), typeName };
  const blocks = [declaration(rootName, document, context)];
  for (const name of objectDefs) blocks.push(declaration(typeName(name), defs[name]!, context));
  return `${blocks.join("\n\n")}\n`;
}

interface Context {
  defs: Record<string, Node>;
  objectDefs: Set<string>;
  typeName: (name: string) => string;
}

function isObjectSchema(node: Node): boolean {
  return node.type === "object" && typeof node.properties === "object";
}

function declaration(name: string, node: Node, context: Context): string {
  return `${docComment(node.description, "")}export interface ${name} ${objectType(node, context, "")}`;
}

function objectType(node: Node, context: Context, indent: string): string {
  const properties = (node.properties ?? {}) as Record<string, Node>;
  const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
  const inner = `${indent}  `;
  const lines: string[] = [];
  for (const [key, schema] of Object.entries(properties)) {
    const name = IDENTIFIER.test(key) ? key : JSON.stringify(key);
    const optional = required.has(key) ? "" : "?";
    lines.push(
      `${docComment(schema.description, inner)}${inner}${name}${optional}: ${typeOf(schema, context, inner)};`,
    );
  }
  for (const [pattern, schema] of Object.entries((node.patternProperties ?? {}) as Record<string, Node>)) {
    const names = namesOfPattern(pattern);
    if (!names) {
      lines.push(`${inner}[key: string]: unknown;`);
      continue;
    }
    for (const key of names) {
      if (properties[key] !== undefined) continue;
      lines.push(
        `${inner}${IDENTIFIER.test(key) ? key : JSON.stringify(key)}?: ${typeOf(schema, context, inner)};`,
      );
    }
  }
  const closed = node.additionalProperties === false || node.unevaluatedProperties === false;
  if (!closed && !lines.some((line) => line.includes("[key: string]")))
    lines.push(`${inner}[key: string]: unknown;`);
  return lines.length === 0 ? "{}" : `{\n${lines.join("\n")}\n${indent}}`;
}

/** "^value(?:Address|Age)$" → ["valueAddress", "valueAge"]; undefined for other patterns. */
function namesOfPattern(pattern: string): string[] | undefined {
  const match = /^\^([A-Za-z0-9_]*)\(\?:([A-Za-z0-9_|]+)\)\$$/.exec(pattern);
  if (!match) return undefined;
  return match[2]!.split("|").map((suffix) => `${match[1]}${suffix}`);
}

function typeOf(node: Node | boolean, context: Context, indent: string): string {
  if (node === true) return "unknown";
  if (node === false) return "never";
  if (typeof node.$ref === "string") {
    const name = /^#\/\$defs\/([^/]+)$/.exec(node.$ref)?.[1];
    if (name === undefined || context.defs[name] === undefined) return "unknown";
    return context.objectDefs.has(name)
      ? context.typeName(name)
      : typeOf(context.defs[name]!, context, indent);
  }
  if (node.const !== undefined) return JSON.stringify(node.const);
  if (Array.isArray(node.enum)) return node.enum.map((value) => JSON.stringify(value)).join(" | ");
  const types = Array.isArray(node.type) ? (node.type as string[]) : [node.type as string | undefined];
  return types.map((type) => typeOfType(type, node, context, indent)).join(" | ");
}

function typeOfType(type: string | undefined, node: Node, context: Context, indent: string): string {
  switch (type) {
    case "string":
      return "string";
    case "integer":
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array": {
      const item = node.items === undefined ? "unknown" : typeOf(node.items as Node, context, indent);
      return /[|&\s]/.test(item) && !item.startsWith("{") ? `(${item})[]` : `${item}[]`;
    }
    case "object":
      return node.properties || node.patternProperties
        ? objectType(node, context, indent)
        : "Record<string, unknown>";
    default:
      return "unknown";
  }
}

function docComment(description: unknown, indent: string): string {
  if (typeof description !== "string" || description.trim() === "") return "";
  const words = description.trim().replace(/\*\//g, "*\\/").split(/\s+/);
  const lines: string[] = [];
  let line = "";
  for (const word of words) {
    if (line && line.length + word.length + 1 > 96) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((l) => `${indent} * ${l}`).join("\n")}\n${indent} */\n`;
}
