/**
 * A state file is data, never code. SQLite keeps a database's schema in the file itself, and a
 * trigger, a view, a virtual table or an index expression there runs with the statements of
 * whoever opens it: a trigger that deletes order rows as they close would run inside this server's
 * own commits. So a file is opened only when its schema is exactly the one its version stands for
 * (schema.ts buildSchema, with the own tables of the symbols it holds): every table, index, view
 * and trigger, and the text that defines each, compared before anything is written to the file
 * (a write, even a pragma that writes, would fire a trigger). What differs is named.
 *
 * The definitions are compared as SQLite stores them, with the whitespace outside quotes
 * normalized, so that a file migrated by another SQLite version compares equal.
 */
import { type Database, loadDriver } from "./driver.js";
import { buildSchema, SYMBOL_OBJECT_STEMS, SYMBOL_TABLES_SINCE } from "./schema.js";

/** How a file's schema differs from the one its version stands for. */
export interface SchemaDifferences {
  /** Objects (or columns) of ours that the file lacks: a damaged or incomplete file. */
  missing: string[];
  /** Objects that are not ours, or ours defined otherwise: a file that may carry code. */
  foreign: string[];
}

interface SchemaObject {
  type: string;
  name: string;
  table: string;
  sql: string | null;
}

/** Longest definition a message quotes. */
const QUOTED_SQL = 160;

/**
 * How the schema of `db` (version `version`, not newer than this server's) differs from this
 * server's. Reads only the schema, and the symbols' positions once the symbols table is known to
 * be exactly ours.
 */
export function schemaDifferences(db: Database, version: number): SchemaDifferences {
  const actual = objectsOf(db);
  const fixed = referenceObjects(version, []);
  const positions = symbolPositions(db, version, actual.get("symbols"), fixed.get("symbols"));
  const reference = positions.valid.length > 0 ? referenceObjects(version, positions.valid) : fixed;
  // A new exchange makes its symbols' tables before its first commit of their rows (schema.ts
  // symbolTablesSql): tables of a position without a symbol may be there, each as ours or absent.
  const spare = spareSymbolObjects(version, actual, reference);
  const differences: SchemaDifferences = { missing: [], foreign: [...positions.faults] };
  for (const [name, want] of reference) {
    const have = actual.get(name);
    if (!have) differences.missing.push(`${want.type} ${name} is missing`);
    else compareObjects(db, have, want, differences);
  }
  for (const [name, have] of actual) {
    if (reference.has(name)) continue;
    const want = spare.get(name);
    if (want) compareObjects(db, have, want, differences);
    else differences.foreign.push(`${describe(have)} is not part of this server's schema`);
  }
  return differences;
}

function compareObjects(
  db: Database,
  have: SchemaObject,
  want: SchemaObject,
  differences: SchemaDifferences,
): void {
  if (have.type !== want.type || have.table !== want.table)
    differences.foreign.push(
      `${have.name} is ${describe(have)}, where this server's schema has ${describe(want)}`,
    );
  else if (normalizedSql(have.sql) !== normalizedSql(want.sql))
    compareDefinitions(db, have, want, differences);
}

/** The names of a symbol's own tables and indexes, with its position (see schema.ts symbolTablesSql). */
const SYMBOL_OBJECT = new RegExp(`^(?:${SYMBOL_OBJECT_STEMS.join("|")})_(0|[1-9][0-9]{0,3})$`);
/** Symbol positions go up to this (see symbolPositions). */
const MOST_SYMBOLS = 8192;

/** Our objects of the positions that name objects of the file but no symbol of it. */
function spareSymbolObjects(
  version: number,
  actual: Map<string, SchemaObject>,
  reference: Map<string, SchemaObject>,
): Map<string, SchemaObject> {
  if (version < SYMBOL_TABLES_SINCE) return new Map();
  const positions = new Set<number>();
  for (const name of actual.keys()) {
    const position = Number(SYMBOL_OBJECT.exec(name)?.[1] ?? Number.NaN);
    if (!reference.has(name) && position < MOST_SYMBOLS) positions.add(position);
  }
  if (positions.size === 0) return new Map();
  const spare = referenceObjects(version, [...positions]);
  for (const name of referenceObjects(version, []).keys()) spare.delete(name);
  return spare;
}

/** Two definitions of one object: a table that only lacks columns is incomplete; anything else is foreign. */
function compareDefinitions(
  db: Database,
  have: SchemaObject,
  want: SchemaObject,
  differences: SchemaDifferences,
): void {
  // A virtual table's columns would be asked of its module: only a plain table's are read.
  if (have.type === "table" && /^CREATE TABLE /i.test(normalizedSql(have.sql))) {
    const columns = db.prepare("SELECT name FROM pragma_table_info(?)").pluck().all(have.name) as string[];
    const wanted = columnsOf(want);
    const lacking = wanted.filter((column) => !columns.includes(column));
    if (lacking.length > 0 && columns.every((column) => wanted.includes(column))) {
      differences.missing.push(`table ${have.name} lacks column ${lacking.join(", ")}`);
      return;
    }
  }
  differences.foreign.push(
    `${have.type} ${have.name} is defined as ${quoted(have.sql)}, where this server's schema has ${quoted(want.sql)}`,
  );
}

/** The columns of a table of the reference schema (built by this server, so plain names). */
function columnsOf(table: SchemaObject): string[] {
  const reference = new (loadDriver())(":memory:");
  try {
    reference.exec(table.sql ?? "");
    return reference.prepare("SELECT name FROM pragma_table_info(?)").pluck().all(table.name) as string[];
  } finally {
    reference.close();
  }
}

/**
 * The positions of the symbols the file holds (each has tables of its own), read only once the
 * symbols table is exactly ours; a position that names no table of ours is a fault.
 */
function symbolPositions(
  db: Database,
  version: number,
  have: SchemaObject | undefined,
  want: SchemaObject | undefined,
): { valid: number[]; faults: string[] } {
  const none = { valid: [], faults: [] };
  if (version < SYMBOL_TABLES_SINCE) return none;
  if (!have || !want || have.type !== "table" || normalizedSql(have.sql) !== normalizedSql(want.sql))
    return none;
  const rows = db.prepare("SELECT symbol, position FROM symbols ORDER BY position").all() as {
    symbol: unknown;
    position: unknown;
  }[];
  const valid: number[] = [];
  const faults: string[] = [];
  for (const { symbol, position } of rows) {
    if (
      typeof position === "number" &&
      Number.isInteger(position) &&
      position >= 0 &&
      position < MOST_SYMBOLS
    )
      valid.push(position);
    else
      faults.push(
        `table symbols, symbol ${JSON.stringify(symbol)}: position ${JSON.stringify(position)} is not a whole number from 0 to 8191`,
      );
  }
  return { valid, faults };
}

function referenceObjects(version: number, positions: readonly number[]): Map<string, SchemaObject> {
  const reference = new (loadDriver())(":memory:");
  try {
    buildSchema(reference, version, positions);
    return objectsOf(reference);
  } finally {
    reference.close();
  }
}

/** Every object of the schema (SQLite's own internal ones included), by name. */
function objectsOf(db: Database): Map<string, SchemaObject> {
  const rows = db
    .prepare("SELECT type, name, tbl_name AS 'table', sql FROM sqlite_schema")
    .all() as SchemaObject[];
  return new Map(rows.map((row) => [row.name, row]));
}

function describe(object: SchemaObject): string {
  const on = object.type === "index" || object.type === "trigger" ? ` on ${object.table}` : "";
  return `${object.type} ${object.name}${on}${object.sql ? ` (${quoted(object.sql)})` : ""}`;
}

function quoted(sql: string | null): string {
  const text = normalizedSql(sql);
  return text.length > QUOTED_SQL ? `${text.slice(0, QUOTED_SQL)}…` : text;
}

/**
 * The text with each run of whitespace outside quotes made one space, and none kept next to
 * parentheses and commas; quoted text (strings, quoted names) is kept as it is.
 */
export function normalizedSql(sql: string | null): string {
  if (sql === null) return "";
  let out = "";
  let quote: string | undefined;
  let space = false;
  for (const char of sql) {
    if (quote) {
      out += char;
      if (char === quote) quote = undefined;
      continue;
    }
    if (/\s/.test(char)) {
      space = true;
      continue;
    }
    if (space && out !== "" && !"(),".includes(char) && !"(,".includes(out[out.length - 1] as string))
      out += " ";
    space = false;
    out += char;
    if (char === "'" || char === '"' || char === "`") quote = char;
    else if (char === "[") quote = "]";
  }
  return out;
}
