// endpoint.html: the Endpoint record's JSON Schema (2020-12) as a page a reader can use without
// opening the JSON: every field with its type, required flag, description and constraints, the
// status values, the payloadMimeType pattern, and every datatype ($defs) with its members.
import { anchorId, escapeHtml, proseToHtml } from "./html.js";
import { isObject, type JsonObject, objectAt, stringAt, stringsAt } from "./json.js";
import { renderStaticPage } from "./static-page.js";

export const ENDPOINT_PAGE = "endpoint.html";

/** A field of an object schema, as the page shows it. */
export interface FieldView {
  name: string;
  /** The type as text: `string`, `Coding`, `CodeableConcept[]`, `"Endpoint"`. */
  type: string;
  required: boolean;
  description: string;
  schema: JsonObject;
}

const DEFS_PREFIX = "#/$defs/";

/** The name of a local `$defs` reference, or undefined for anything else. */
export function defName(ref: unknown): string | undefined {
  return typeof ref === "string" && ref.startsWith(DEFS_PREFIX) ? ref.slice(DEFS_PREFIX.length) : undefined;
}

/** The type of a schema as text, resolving `$ref`s to datatype names. */
export function typeText(schema: unknown): string {
  return typeParts(
    schema,
    (name) => name,
    (text) => text,
  );
}

function typeHtml(schema: unknown): string {
  return typeParts(
    schema,
    (name) => `<a href="#${anchorId("def", name)}"><code>${escapeHtml(name)}</code></a>`,
    (text) => `<code>${escapeHtml(text)}</code>`,
  );
}

function typeParts(schema: unknown, ref: (name: string) => string, plain: (text: string) => string): string {
  if (!isObject(schema)) return plain(schema === false ? "never" : "any");
  const name = defName(schema.$ref);
  if (name !== undefined) return ref(name);
  if (typeof schema.$ref === "string") return plain(schema.$ref);
  if ("const" in schema && schema.type === undefined) return plain(JSON.stringify(schema.const));
  for (const key of ["oneOf", "anyOf"] as const) {
    const options = schema[key];
    if (Array.isArray(options)) return options.map((o) => typeParts(o, ref, plain)).join(" | ");
  }
  const types = Array.isArray(schema.type) ? stringsAt(schema.type) : stringsAt([schema.type]);
  const shown = types.map((type) => {
    if (type === "array") {
      const inner = typeParts(schema.items, ref, plain);
      return inner.includes(" | ") ? `(${inner})[]` : `${inner}[]`;
    }
    return plain(type);
  });
  if (shown.length > 0) return shown.join(" | ");
  if (isObject(schema.properties)) return plain("object");
  return plain("any");
}

/** The fields of an object schema, in schema order. */
export function fieldsOf(schema: JsonObject): FieldView[] {
  const required = new Set(stringsAt(schema.required));
  return Object.entries(objectAt(schema.properties)).map(([name, property]) => {
    const fieldSchema = objectAt(property);
    return {
      name,
      type: typeText(fieldSchema),
      required: required.has(name),
      description: descriptionOf(fieldSchema),
      schema: fieldSchema,
    };
  });
}

function descriptionOf(schema: JsonObject): string {
  return stringAt(schema.description) ?? "";
}

/** Constraints of a schema as short HTML phrases (enum, const, pattern, lengths, bounds). */
export function constraintsHtml(schema: JsonObject, prefix = ""): string[] {
  const out: string[] = [];
  const say = (phrase: string) => out.push(prefix ? `${prefix} ${phrase}` : phrase);
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.map((v) => `<li><code>${escapeHtml(JSON.stringify(v))}</code></li>`).join("");
    say(`one of ${schema.enum.length} values: <ul class="values">${values}</ul>`);
  }
  if ("const" in schema) say(`always <code>${escapeHtml(JSON.stringify(schema.const))}</code>`);
  if (typeof schema.pattern === "string")
    say(`matches the pattern <code>${escapeHtml(schema.pattern)}</code>`);
  if (typeof schema.minLength === "number") say(`at least ${count(schema.minLength, "character")}`);
  if (typeof schema.maxLength === "number") say(`at most ${count(schema.maxLength, "character")}`);
  if (typeof schema.minItems === "number") say(`at least ${count(schema.minItems, "item")}`);
  if (typeof schema.maxItems === "number") say(`at most ${count(schema.maxItems, "item")}`);
  if (typeof schema.minimum === "number") say(`minimum ${schema.minimum}`);
  if (typeof schema.maximum === "number") say(`maximum ${schema.maximum}`);
  if (typeof schema.minProperties === "number") say(`at least ${count(schema.minProperties, "member")}`);
  if (schema.additionalProperties === false && isObject(schema.properties)) {
    say("no members other than those listed");
  }
  if (isObject(schema.items)) {
    const items = schema.items;
    out.push(...constraintsHtml(items, "each item"));
    const itemDescription = descriptionOf(items);
    if (itemDescription && defName(items.$ref) === undefined) {
      out.push(`each item: ${proseToHtml(itemDescription)}`);
    }
  }
  return out;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

function constraintsList(schema: JsonObject): string {
  const items = constraintsHtml(schema);
  return items.length === 0
    ? ""
    : `<ul class="constraints">${items.map((i) => `<li>${i}</li>`).join("")}</ul>`;
}

/** An inline object (e.g. the items of `contained`) gets its own small member table. */
function nestedMembers(schema: JsonObject): string {
  const inner = isObject(schema.items) ? schema.items : schema;
  if (defName(inner.$ref) !== undefined || !isObject(inner.properties)) return "";
  const label = inner === schema ? "Members" : "Members of each item";
  return `<div class="nested"><p class="optional">${label}:</p>${fieldsTable(inner, "")}</div>`;
}

function fieldsTable(schema: JsonObject, idPrefix: string): string {
  const rows = fieldsOf(schema).map((field) => {
    const id = idPrefix ? ` id="${anchorId(idPrefix, field.name)}"` : "";
    const required = field.required
      ? '<span class="badge">required</span>'
      : '<span class="optional">optional</span>';
    return `<tr${id}><td class="name"><code>${escapeHtml(field.name)}</code></td><td class="type">${typeHtml(field.schema)}</td><td>${required}</td><td>${proseToHtml(field.description)}${constraintsList(field.schema)}${nestedMembers(field.schema)}</td></tr>`;
  });
  const patternRows = Object.entries(objectAt(schema.patternProperties)).map(([pattern, property]) => {
    const member = objectAt(property);
    return `<tr><td class="pattern">names matching <code>${escapeHtml(pattern)}</code></td><td class="type">${typeHtml(member)}</td><td><span class="optional">optional</span></td><td>${proseToHtml(descriptionOf(member))}${constraintsList(member)}</td></tr>`;
  });
  return `<table>
<thead><tr><th scope="col">Field</th><th scope="col">Type</th><th scope="col">Required</th><th scope="col">Description</th></tr></thead>
<tbody>
${[...rows, ...patternRows].join("\n")}
</tbody>
</table>`;
}

/** Where each datatype is used: by the record's fields and by other datatypes' members. */
function usesOfDefs(schema: JsonObject): Map<string, string[]> {
  const uses = new Map<string, string[]>();
  const note = (name: string, where: string) => {
    const list = uses.get(name) ?? [];
    if (!list.includes(where)) list.push(where);
    uses.set(name, list);
  };
  const walk = (node: unknown, where: string) => {
    if (Array.isArray(node)) for (const item of node) walk(item, where);
    else if (isObject(node)) {
      const name = defName(node.$ref);
      if (name !== undefined) note(name, where);
      for (const value of Object.values(node)) walk(value, where);
    }
  };
  for (const [field, property] of Object.entries(objectAt(schema.properties))) walk(property, field);
  for (const [def, body] of Object.entries(objectAt(schema.$defs))) walk(body, def);
  return uses;
}

function whereLink(where: string, schema: JsonObject): string {
  const isDef = where in objectAt(schema.$defs);
  const id = isDef ? anchorId("def", where) : anchorId("field", where);
  return `<a href="#${id}"><code>${escapeHtml(where)}</code></a>`;
}

function datatypeSection(name: string, def: JsonObject, usedBy: string[], schema: JsonObject): string {
  const kind = isObject(def.properties) ? "object" : typeText({ ...def, description: undefined });
  const members = isObject(def.properties)
    ? fieldsTable(def, "")
    : `<p>A <code>${escapeHtml(kind)}</code> value.</p>${constraintsList(def)}`;
  const required = stringsAt(def.required);
  const requiredNote =
    isObject(def.properties) && required.length > 0
      ? `<p>Required members: ${required.map((r) => `<code>${escapeHtml(r)}</code>`).join(", ")}.</p>`
      : "";
  const used =
    usedBy.length > 0
      ? `<p class="optional">Used by ${usedBy.map((where) => whereLink(where, schema)).join(", ")}.</p>`
      : "";
  return `<section id="${anchorId("def", name)}">
<h3><code>${escapeHtml(name)}</code>${kind === name ? "" : ` <span class="optional">${escapeHtml(kind)}</span>`}</h3>
<p>${proseToHtml(descriptionOf(def))}</p>
${requiredNote}${members}${used}
</section>`;
}

/** The `status` field's allowed values, and the `payloadMimeType` items' pattern, if the schema has them. */
function highlights(schema: JsonObject): string {
  const properties = objectAt(schema.properties);
  const parts: string[] = [];
  const status = objectAt(properties.status);
  if (Array.isArray(status.enum)) {
    const rows = status.enum.map((value) => `<li><code>${escapeHtml(String(value))}</code></li>`).join("");
    parts.push(`<section id="status-values">
<h2>Status values</h2>
<p>The <a href="#${anchorId("field", "status")}"><code>status</code></a> field takes exactly one of these ${status.enum.length} values:</p>
<ul class="values">${rows}</ul>
</section>`);
  }
  const mime = objectAt(objectAt(properties.payloadMimeType).items);
  if (typeof mime.pattern === "string") {
    parts.push(`<section id="payload-mime-type-pattern">
<h2>payloadMimeType pattern</h2>
<p>Each item of <a href="#${anchorId("field", "payloadMimeType")}"><code>payloadMimeType</code></a> must match</p>
<p class="callout"><code>${escapeHtml(mime.pattern)}</code></p>
<p>${proseToHtml(descriptionOf(mime))}</p>
</section>`);
  }
  return parts.join("\n");
}

/** A description split into its first sentence (what the record is) and the rest (the fine print). */
export function splitDescription(description: string): { lead: string; rest: string } {
  const match = description.match(/^[\s\S]*?[.!?](?=\s|$)/);
  const lead = (match ? match[0] : description).trim();
  return { lead, rest: description.slice(match ? match[0].length : description.length).trim() };
}

/** An example record shown on the first screen: its source file's name and its JSON text. */
export interface RecordExample {
  name: string;
  json: string;
}

/** The first screen: the required fields, each with type and description, beside an example. */
function firstScreen(schema: JsonObject, example: RecordExample | undefined): string {
  const required = fieldsOf(schema).filter((field) => field.required);
  const items = required
    .map(
      (field) =>
        `<li><a href="#${anchorId("field", field.name)}"><code>${escapeHtml(field.name)}</code></a> <span class="type">${typeHtml(field.schema)}</span>: ${proseToHtml(field.description)}</li>`,
    )
    .join("\n");
  const exampleHtml = example
    ? `<section id="example" aria-labelledby="example-title">
<h2 id="example-title">Example</h2>
<pre class="example"><code>${escapeHtml(example.json.trim())}</code></pre>
<p class="optional">${escapeHtml(example.name)}, valid against the schema.</p>
</section>`
    : "";
  return `<div class="first-screen">
<section id="required-fields" aria-labelledby="required-fields-title">
<h2 id="required-fields-title">Required fields</h2>
<ul class="required">
${items}
</ul>
<p class="optional">Every other field is optional; <a href="#fields">all ${fieldsOf(schema).length} fields</a> are listed below.</p>
</section>
${exampleHtml}
</div>`;
}

/** The whole page, from the parsed schema and an example record to show first. */
export function renderEndpointPage(schema: JsonObject, siteName: string, example?: RecordExample): string {
  const title = stringAt(schema.title) ?? "Record";
  const fields = fieldsOf(schema);
  const defs = Object.entries(objectAt(schema.$defs)).filter((entry): entry is [string, JsonObject] =>
    isObject(entry[1]),
  );
  const uses = usesOfDefs(schema);
  const required = fields.filter((f) => f.required).map((f) => `<code>${escapeHtml(f.name)}</code>`);
  const dialect = stringAt(schema.$schema) ?? "";
  const { lead, rest } = splitDescription(descriptionOf(schema));
  const aboutTitle = "About this schema";
  const about = rest
    ? `<section id="about-this-schema">
<h2>${aboutTitle}</h2>
<div class="callout"><p>${proseToHtml(rest)}</p></div>
</section>`
    : "";
  const body = `<h1>${escapeHtml(title)} record</h1>
<p class="lead">${proseToHtml(lead)}</p>
${firstScreen(schema, example)}
<dl class="facts">
<dt>Schema</dt><dd>JSON Schema <code>${escapeHtml(dialect)}</code>, <code>$id</code> <code>${escapeHtml(stringAt(schema.$id) ?? "–")}</code></dd>
<dt>Fields</dt><dd>${fields.length}, of which required: ${required.join(", ") || "none"}</dd>
<dt>Other members</dt><dd>${schema.additionalProperties === false ? "not allowed (closed object)" : "allowed"}</dd>
<dt>Datatypes</dt><dd>${defs.length}</dd>
<dt>Raw schema</dt><dd><a href="endpoint.schema.json">endpoint.schema.json</a></dd>
</dl>
<nav aria-label="Contents"><ul class="toc">
${rest ? `<li><a href="#about-this-schema">${aboutTitle}</a></li>\n` : ""}<li><a href="#fields">Fields</a></li>
<li><a href="#status-values">Status values</a></li>
<li><a href="#payload-mime-type-pattern">payloadMimeType pattern</a></li>
<li><a href="#datatypes">Datatypes</a>: ${defs.map(([name]) => `<a href="#${anchorId("def", name)}">${escapeHtml(name)}</a>`).join(", ")}</li>
</ul></nav>
${about}
<section id="fields">
<h2>Fields</h2>
${fieldsTable(schema, "field")}
</section>
${highlights(schema)}
<section id="datatypes">
<h2>Datatypes</h2>
<p>The datatypes the fields refer to (<code>$defs</code> of the schema).</p>
${defs.map(([name, def]) => datatypeSection(name, def, uses.get(name) ?? [], schema)).join("\n")}
</section>
<footer>Generated from <a href="endpoint.schema.json">endpoint.schema.json</a>.</footer>`;
  return renderStaticPage({
    title: `${title} record – JSON Schema reference`,
    description: `Fields, types and datatypes of the ${title} record (JSON Schema).`,
    body,
    crumb: `${title} record`,
    siteName,
  });
}
