import { loadOpenApi } from "@marketapi/spec";
import { describe, expect, it } from "vitest";
import { brandOf } from "../src/brand.js";
import { objectAt } from "../src/json.js";
import {
  embeddedDefinition,
  makeRedocPageOffline,
  pageTemplate,
  plainText,
  redocJob,
  redoclyConfig,
  redocPageProblems,
  withPlainServerDescriptions,
  withServerVariablesFilledIn,
} from "../src/redoc-page.js";

const LOGO = "https://cdn.redoc.ly/redoc/logo-mini-full.svg";
const telemetryOff =
  '<script type="module">hydrate(d, {"skipBundle":true,"disableTelemetry":true});</script>';

describe("the Redoc run", () => {
  it("builds with telemetry off", () => {
    expect(redoclyConfig()).toMatch(/^telemetry: off$/m);
    expect(redoclyConfig()).toMatch(/^openapi:\n {2}layout: "three-panel"$/m);
  });

  it("uses a template with Redoc's placeholders, an inline favicon and no remote asset", () => {
    const template = pageTemplate(loadOpenApi(), brandOf(loadOpenApi(), { title: "marketapi" }));
    for (const placeholder of ["{{title}}", "{{{redocHead}}}", "{{{redocHTML}}}"])
      expect(template).toContain(placeholder);
    expect(template).toContain('<link rel="icon" href="data:image/svg+xml,');
    expect(template).not.toMatch(/\b(src|href)="https?:/);
  });

  it("renders the surfaced spec, with the project's logo inline", () => {
    const job = redocJob(loadOpenApi(), brandOf(loadOpenApi(), { title: "marketapi" }));
    const spec = JSON.parse(job.spec);
    const logo = objectAt(objectAt(spec.info)["x-logo"]);
    expect(String(logo.url)).toMatch(/^data:image\/svg\+xml,/);
    expect(logo.href).toBe("index.html");
    expect(String(objectAt(spec.info).description)).toContain("## Request signing");
    expect(job.output).toBe("api.html");
  });

  it("renders every operation with its code samples and Redoc's language menu set to them", () => {
    const spec = JSON.parse(redocJob(loadOpenApi(), brandOf(loadOpenApi(), { title: "marketapi" })).spec);
    for (const path of Object.values(objectAt(spec.paths))) {
      for (const operation of Object.values(objectAt(path))) {
        const labels = (objectAt(operation)["x-codeSamples"] as { label: string }[]).map((s) => s.label);
        expect(labels).toEqual(["curl", "TypeScript", "Python"]);
      }
    }
    expect(redoclyConfig({ tested: true })).toContain(
      'codeSamples: {"languages":[{"lang":"bash","label":"curl"},{"lang":"typescript","label":"TypeScript"},{"lang":"python","label":"Python"}]}',
    );
  });

  it("writes server descriptions as plain text, since Redoc shows them so", () => {
    const spec = JSON.parse(redocJob(loadOpenApi(), brandOf(loadOpenApi(), { title: "marketapi" })).spec);
    const [first] = spec.servers as { description: string; url: string }[];
    expect(first?.description).toContain("names the base address base_url;");
    expect(first?.description).not.toMatch(/[`\n{}]/);
    expect(first?.url).toBe("http://127.0.0.1:8080");
    expect(spec.servers[0]).not.toHaveProperty("variables");
    expect(withPlainServerDescriptions({ info: {} })).toEqual({ info: {} });
  });

  it.each([
    {
      given: { url: "{base_url}", variables: { base_url: { default: "http://localhost:1" } } },
      want: { url: "http://localhost:1" },
    },
    {
      given: {
        url: "https://{host}:{port}/v1",
        description: "At `{host}`.",
        variables: { host: { default: "a.example" }, port: { default: "8443" } },
      },
      want: { url: "https://a.example:8443/v1", description: "At `host`." },
    },
    // A variable without a default stays templated, with its variables.
    {
      given: { url: "{base}", variables: { base: { enum: ["x"] } } },
      want: { url: "{base}", variables: { base: { enum: ["x"] } } },
    },
    { given: { url: "https://api.example" }, want: { url: "https://api.example" } },
  ])("withServerVariablesFilledIn($given.url)", ({ given, want }) => {
    expect(withServerVariablesFilledIn({ servers: [given] })).toEqual({ servers: [want] });
  });

  it.each([
    { given: "the base `{base_url}` here", want: "the base {base_url} here" },
    { given: "a ``code with ` inside`` span", want: "a code with ` inside span" },
    { given: "two\nlines,   spaced ", want: "two lines, spaced" },
    { given: "no markup", want: "no markup" },
  ])("plainText($given)", ({ given, want }) => {
    expect(plainText(given)).toBe(want);
  });
});

describe("the built page", () => {
  it("loses its one remote asset, the Redocly footer logo", () => {
    const built = `${telemetryOff}<img src=\`${LOGO}\`>`;
    expect(redocPageProblems(built)).toEqual([expect.stringContaining(LOGO)]);
    const offline = makeRedocPageOffline(built);
    expect(offline).not.toContain("cdn.redoc.ly");
    expect(offline).toContain("data:image/svg+xml,");
    expect(offline).not.toContain("`data:image/svg+xml,%60"); // no backtick that would end the JS template string
    expect(redocPageProblems(offline)).toEqual([]);
  });

  it("is refused unless it embeds exactly the published document", () => {
    const page = (definition: string) =>
      `${telemetryOff}<script type="module">\n      const __redoc_definition = ${definition};\n      const x = 1;</script>`;
    const document = { openapi: "3.1.0", paths: { "/a": { get: { "x-codeSamples": [] } } } };
    expect(embeddedDefinition(page(JSON.stringify(document)))).toEqual(document);
    expect(redocPageProblems(page(JSON.stringify(document)), document)).toEqual([]);
    // Redoc's bundler adds an empty components object to a document that has none.
    expect(redocPageProblems(page(JSON.stringify({ ...document, components: {} })), document)).toEqual([]);
    expect(
      redocPageProblems(page(JSON.stringify({ ...document, components: { schemas: {} } })), document),
    ).toHaveLength(1);
    expect(redocPageProblems(page(JSON.stringify({ ...document, paths: {} })), document)).toEqual([
      expect.stringContaining("does not embed the document published as api.openapi.json"),
    ]);
    expect(embeddedDefinition("<html></html>")).toBeUndefined();
  });

  it("is refused when telemetry is on or the script comes from a CDN", () => {
    expect(redocPageProblems('{"skipBundle":true}')).toEqual([expect.stringContaining("disableTelemetry")]);
    const cdn = `${telemetryOff}<script type="module" src="https://cdn.redocly.com/redoc/v3/bundles/redoc.standalone.js"></script>`;
    expect(redocPageProblems(cdn)).toEqual([expect.stringContaining("--inlineBundle")]);
  });
});
