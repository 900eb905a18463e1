import { loadEndpointSchema } from "@marketapi/spec";
import { describe, expect, it } from "vitest";
import { fieldsOf, renderEndpointPage, splitDescription, typeText } from "../src/endpoint-page.js";
import { escapeHtml, proseToHtml } from "../src/html.js";
import { objectAt, stringsAt } from "../src/json.js";

const schema = loadEndpointSchema();
const page = renderEndpointPage(schema, "marketapi");

describe("renderEndpointPage", () => {
  it("has a row for every field of the schema, with its required flag", () => {
    const fields = Object.keys(objectAt(schema.properties));
    expect(fields.length).toBeGreaterThan(20);
    const required = new Set(stringsAt(schema.required));
    for (const field of fields) {
      const row = page.match(new RegExp(`<tr id="field-${field}">.*?</tr>`, "s"))?.[0] ?? "";
      expect(row, field).toContain(`<td class="name"><code>${field}</code></td>`);
      expect(row, field).toContain(required.has(field) ? '<span class="badge">required</span>' : "optional");
    }
  });

  it("names types after the datatypes the $refs point to", () => {
    const types = Object.fromEntries(fieldsOf(schema).map((field) => [field.name, field.type]));
    expect(types.connectionType).toBe("Coding");
    expect(types.payloadType).toBe("CodeableConcept[]");
    expect(types.identifier).toBe("Identifier[]");
    expect(types.payloadMimeType).toBe("string[]");
    expect(types.resourceType).toBe("string");
    expect(types.status).toBe("string");
    expect(page).toContain('<a href="#def-CodeableConcept"><code>CodeableConcept</code></a>[]');
    expect(typeText({ const: "Endpoint" })).toBe('"Endpoint"');
    expect(typeText({ oneOf: [{ type: "string" }, { $ref: "#/$defs/Coding" }] })).toBe("string | Coding");
    expect(typeText({ type: "array", items: { anyOf: [{ type: "string" }, { type: "integer" }] } })).toBe(
      "(string | integer)[]",
    );
    expect(typeText(undefined)).toBe("any");
  });

  it("lists the six status values and the payloadMimeType pattern", () => {
    const status = stringsAt(objectAt(objectAt(schema.properties).status).enum);
    expect(status).toEqual(["active", "suspended", "error", "off", "entered-in-error", "test"]);
    const section = page.slice(
      page.indexOf('<section id="status-values">'),
      page.indexOf('<section id="payload-mime'),
    );
    for (const value of status) expect(section).toContain(`<li><code>${value}</code></li>`);
    const pattern = String(objectAt(objectAt(objectAt(schema.properties).payloadMimeType).items).pattern);
    expect(page).toContain(`<p class="callout"><code>${escapeHtml(pattern)}</code></p>`);
  });

  it("documents every datatype ($defs) with its members", () => {
    for (const [name, def] of Object.entries(objectAt(schema.$defs))) {
      const start = page.indexOf(`<section id="def-${name}">`);
      expect(start, name).toBeGreaterThan(-1);
      const section = page.slice(start, page.indexOf("</section>", start));
      for (const member of Object.keys(objectAt(objectAt(def).properties))) {
        expect(section, `${name}.${member}`).toContain(`<code>${member}</code>`);
      }
    }
  });

  it("escapes markup in descriptions and patterns", () => {
    // Narrative.div's pattern is ^\s*<div[\s>/][\s\S]*</div>\s*$ — it must show, not render.
    expect(page).toContain("^\\s*&lt;div[\\s&gt;/][\\s\\S]*&lt;/div&gt;\\s*$");
    const hostile = renderEndpointPage(
      {
        title: "T<i>",
        description: "Uses <script>alert('x')</script> & `a<b>`.",
        properties: { "x<y": { type: "string", description: '1 < 2 & "q"', pattern: "^<$" } },
      },
      "marketapi",
    );
    expect(hostile).not.toContain("<script>");
    expect(hostile).not.toContain("<i>");
    expect(hostile).toContain(
      "Uses &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; <code>a&lt;b&gt;</code>.",
    );
    expect(hostile).toContain("1 &lt; 2 &amp; &quot;q&quot;");
    expect(hostile).toContain("<code>x&lt;y</code>");
    expect(hostile).toContain('id="field-x_y"');
    expect(proseToHtml("`<`")).toBe("<code>&lt;</code>");
  });

  it("is self-contained: no scripts and no remote assets", () => {
    expect(page).not.toMatch(/<script/i);
    expect(page).not.toMatch(/\b(src|href)="(https?:)?\/\//i);
    expect(page).toMatch(/<style>/);
  });

  it("opens with what the record is, its required fields and the example, and puts the fine print after them", () => {
    const example = { name: "e.json", json: '{"resourceType":"Endpoint"}' };
    const withExample = renderEndpointPage(schema, "marketapi", example);
    const at = (needle: string) => withExample.indexOf(needle);
    const { lead, rest } = splitDescription(String(schema.description));
    expect(lead).toMatch(/^The FHIR Endpoint resource as kept by marketapi: .*\.$/);
    expect(rest).toMatch(/R5/);
    expect(at(`<p class="lead">`)).toBeLessThan(at('id="required-fields"'));
    for (const name of stringsAt(schema.required)) {
      const item = at(`<li><a href="#field-${name}"><code>${name}</code></a>`);
      expect(item, name).toBeGreaterThan(at('id="required-fields"'));
      expect(item, name).toBeLessThan(at('id="example"'));
    }
    expect(at("{&quot;resourceType&quot;:&quot;Endpoint&quot;}")).toBeGreaterThan(at('id="example"'));
    expect(at('id="about-this-schema"')).toBeGreaterThan(at('id="example"'));
    expect(at(escapeHtml(rest.slice(0, 40)))).toBeGreaterThan(at('id="about-this-schema"'));
    // Without an example the page still opens with the required fields.
    expect(renderEndpointPage(schema, "marketapi")).not.toContain('id="example"');
  });

  it.each([
    { given: "One. Two.", want: { lead: "One.", rest: "Two." } },
    { given: "Only one", want: { lead: "Only one", rest: "" } },
    { given: "Version 4.0.1 is it. More.", want: { lead: "Version 4.0.1 is it.", rest: "More." } },
  ])("splitDescription($given)", ({ given, want }) => {
    expect(splitDescription(given)).toEqual(want);
  });
});
