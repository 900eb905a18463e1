// The schema check on databases built in memory from the server's own schema definition (schema.ts),
// so that it follows every change of that definition: the exact schema passes; the own tables of
// a position without a symbol (a new exchange makes them before its first commit) pass, each of
// them, when they are ours; anything else is named.
import { describe, expect, it } from "vitest";
import { type Database, loadDriver } from "../src/store/driver.js";
import { buildSchema, SCHEMA_VERSION, symbolTablesSql } from "../src/store/schema.js";
import { schemaDifferences } from "../src/store/schema-check.js";

function database(positions: number[], sql = ""): Database {
  const db = new (loadDriver())(":memory:");
  buildSchema(db, SCHEMA_VERSION, positions);
  positions.forEach((position, i) => {
    db.prepare("INSERT INTO symbols (symbol, position, config) VALUES (?, ?, '{}')").run(`S${i}`, position);
  });
  db.exec(sql);
  return db;
}

/** The names of the objects a symbol's own tables add at `position`. */
function symbolObjects(position: number): string[] {
  const db = database([]);
  const before = new Set(db.prepare("SELECT name FROM sqlite_schema").pluck().all() as string[]);
  db.exec(symbolTablesSql(position));
  const added = (db.prepare("SELECT name FROM sqlite_schema").pluck().all() as string[]).filter(
    (name) => !before.has(name),
  );
  db.close();
  return added;
}

describe("the schema check", () => {
  it("finds nothing in the schema it stands for", () => {
    const db = database([0, 1]);
    expect(schemaDifferences(db, SCHEMA_VERSION)).toEqual({ missing: [], foreign: [] });
  });

  it("takes a position's own tables without its symbol, all or any one of them alone", () => {
    const db = database([0], symbolTablesSql(7));
    expect(schemaDifferences(db, SCHEMA_VERSION)).toEqual({ missing: [], foreign: [] });
    for (const name of symbolObjects(7)) {
      const alone = database([0], symbolTablesSql(7));
      const objects = alone.prepare("SELECT type, name, tbl_name FROM sqlite_schema").all() as {
        type: string;
        name: string;
        tbl_name: string;
      }[];
      const kept = objects.find((object) => object.name === name);
      for (const object of objects) {
        if (!/_7$/.test(object.name) || object.name === name || object.name === kept?.tbl_name) continue;
        alone.exec(`DROP ${object.type.toUpperCase()} IF EXISTS ${object.name}`);
      }
      expect(schemaDifferences(alone, SCHEMA_VERSION).foreign, name).toEqual([]);
    }
  });

  it.each(symbolObjects(3))("names %s of a position without a symbol when defined otherwise", (name) => {
    const db = database([0], symbolTablesSql(3));
    const type = String(db.prepare("SELECT type FROM sqlite_schema WHERE name = ?").pluck().get(name));
    db.exec(`DROP ${type.toUpperCase()} ${name}`);
    db.exec(
      type === "index"
        ? `CREATE INDEX ${name} ON orders_0 (time)`
        : `CREATE TABLE ${name} (key INTEGER PRIMARY KEY, note TEXT)`,
    );
    expect(schemaDifferences(db, SCHEMA_VERSION).foreign.join("\n")).toContain(`${type} ${name}`);
  });
});
