// Everything about the Redoc page (api.html) except running the CLI: the inputs handed to
// `redocly build-docs` (spec, config, page template) and the checks and fixes applied to its output.

import { isDeepStrictEqual } from "node:util";
import { BRAND, faviconLink, type SiteBrand, typescriptIconDataUri } from "./brand.js";
import { escapeHtml } from "./html.js";
import type { JsonObject } from "./json.js";
import { isObject, objectAt } from "./json.js";
import { CONTENT_SECURITY_POLICY_META, withoutRemoteFetches } from "./offline.js";
import { addCodeSamples, chosenLanguages, type SampleOptions } from "./samples/code-samples.js";
import { DEFAULT_SCENARIO } from "./samples/sample-requests.js";
import { surfaceVendorExtensions } from "./vendor-extensions.js";

export const API_PAGE = "api.html";
/** The document api.html renders, published beside it. */
export const API_DOCUMENT = "api.openapi.json";
/** The reference server's sandbox document (beyond the API's operations) as a page, and the document it renders. */
export const SANDBOX_PAGE = "sandbox.html";
export const SANDBOX_DOCUMENT = "sandbox.openapi.json";
export const INDEX_PAGE = "index.html";

/** The files `redocly build-docs` reads, plus the options of the run. */
export interface RedocJob {
  /**
   * The document Redoc renders, as JSON text: the source spec with its extensions surfaced, code
   * samples added and server descriptions made plain. Published as it is (API_DOCUMENT).
   */
  spec: string;
  /** A redocly.yaml for the run: telemetry off and the Redoc options. */
  config: string;
  /** The Handlebars page template. */
  template: string;
  title: string;
  output: string;
}

/** Redoc options (the `openapi` section of redocly.yaml), with exactly the samples' languages. */
export function redocOptions(samples: SampleOptions = {}) {
  return {
    layout: "three-panel",
    jsonSamplesExpandLevel: 2,
    sortRequiredPropsFirst: true,
    hideDownloadButtons: true,
    codeSamples: { languages: chosenLanguages(samples).map(({ lang, label }) => ({ lang, label })) },
  } as const;
}

export function redocJob(
  openapi: JsonObject,
  brand: SiteBrand,
  samples: SampleOptions = { tested: true },
  output: string = API_PAGE,
): RedocJob {
  const title = `${String(objectAt(openapi.info).title ?? "API")} – reference`;
  return {
    spec: `${JSON.stringify(renderedDocument(openapi, brand, samples), null, 2)}\n`,
    config: redoclyConfig(samples),
    template: pageTemplate(openapi, brand),
    title,
    output,
  };
}

/** The source spec as api.html shows it. Each step is a pure function from spec to spec. */
export function renderedDocument(
  openapi: JsonObject,
  brand: SiteBrand,
  samples: SampleOptions = { tested: true },
): JsonObject {
  return withLogo(
    withoutRemoteFetches(
      withPlainServerDescriptions(
        withServerVariablesFilledIn(
          addCodeSamples(surfaceVendorExtensions(openapi), DEFAULT_SCENARIO, samples),
        ),
      ),
    ),
    brand,
  );
}

/**
 * Redoc shows server descriptions as plain text, so Markdown code spans in them would show their
 * backticks (`{base_url}`). The copy drops the backticks and folds the lines.
 */
export function withPlainServerDescriptions(openapi: JsonObject): JsonObject {
  if (!Array.isArray(openapi.servers)) return openapi;
  const servers = openapi.servers.map((server) =>
    isObject(server) && typeof server.description === "string"
      ? { ...server, description: plainText(server.description) }
      : server,
  );
  return { ...openapi, servers };
}

/**
 * Redoc's Servers panel shows a templated URL as it is (`{base_url}`), a placeholder a reader
 * cannot use. The copy shows each server at its variables' defaults, and drops the variables,
 * which then template nothing; the description still says what the address stands for. (The code
 * samples read the default from the source spec before this step.)
 */
export function withServerVariablesFilledIn(openapi: JsonObject): JsonObject {
  if (!Array.isArray(openapi.servers)) return openapi;
  const servers = openapi.servers.map((server) => {
    if (!isObject(server) || typeof server.url !== "string" || !isObject(server.variables)) return server;
    const variables = server.variables;
    const url = server.url.replace(/\{([^}]+)\}/g, (whole, name: string) => {
      const value = objectAt(variables[name]).default;
      return typeof value === "string" ? value : whole;
    });
    if (/[{}]/.test(url)) return server;
    const { variables: _filled, ...rest } = server;
    const description =
      typeof server.description === "string"
        ? server.description.replace(/`?\{([^}]+)\}`?/g, (whole, name: string) =>
            name in variables ? `\`${name}\`` : whole,
          )
        : undefined;
    return { ...rest, url, ...(description !== undefined ? { description } : {}) };
  });
  return { ...openapi, servers };
}

/** Markdown code spans as their text, runs of whitespace as one space. */
export function plainText(markdown: string): string {
  return markdown
    .replace(/(`+)(.+?)\1/gs, "$2")
    .replace(/\s+/g, " ")
    .trim();
}

/** The site's logo (the spec's x-logo, or a wordmark drawn inline from its name) linking back to the index page. */
function withLogo(openapi: JsonObject, brand: SiteBrand): JsonObject {
  const info = objectAt(openapi.info);
  return { ...openapi, info: { ...info, "x-logo": { ...brand.logo, href: brand.logo.href ?? INDEX_PAGE } } };
}

/** YAML text of the redocly.yaml used for the build. Telemetry is off here and in the environment. */
export function redoclyConfig(samples: SampleOptions = {}): string {
  // JSON is YAML: nested options (codeSamples) are written as flow mappings.
  const options = Object.entries(redocOptions(samples))
    .map(([key, value]) => `  ${key}: ${JSON.stringify(value)}`)
    .join("\n");
  return `# Written for one build-docs run.\ntelemetry: off\nopenapi:\n${options}\n`;
}

/**
 * The page template: Redoc's own (title, viewport, redocHead, redocHTML) plus a description, an
 * inline favicon (so the browser asks for no /favicon.ico) and the project's colours.
 */
export function pageTemplate(openapi: JsonObject, brand: SiteBrand): string {
  const info = objectAt(openapi.info);
  const summary = typeof info.summary === "string" ? info.summary : "API reference";
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  ${CONTENT_SECURITY_POLICY_META}
  <title>{{title}}</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="description" content="${escapeHtml(summary)}">
  ${faviconLink(brand.name)}
  <style>
    body { padding: 0; margin: 0; }
  </style>
  {{{redocHead}}}
  <style>
    /* Project colours for Redoc 3 (CSS custom properties). html:root outranks Redoc's :root. */
    html:root {
${Object.entries(BRAND.palette)
  .map(([step, colour]) => `      --color-brand-${step}: ${colour};`)
  .join("\n")}
      --link-color-primary: ${BRAND.palette[8]};
      /* Code blocks show whole: long lines wrap between words, the box is as tall as the code (Redoc: 600 px). */
      --code-wrap: pre-wrap;
      --code-block-max-height: none;
      --code-block-word-break: normal;
    }
    /* Show x-badges (the auth class) as written: market_data, not Market_data. */
    [data-component-name="Tag/Tag"].tag-default > div { text-transform: none; }
    /*
     * No word is broken to make a table fit: the generated tables' cells wrap between words only,
     * and a table whose columns need more than the screen scrolls sideways in Redoc's wrapper.
     */
    html body [data-component-name="Markdown/Markdown"] :is(td, th, td code, th code) { word-break: normal; overflow-wrap: normal; }
    html body [data-component-name="Markdown/Markdown"] .md-table-wrapper { overflow-x: auto; max-width: 100%; }
    html body [data-component-name="Markdown/Markdown"] .md-table-wrapper > table { display: table; overflow: visible; }
    /* Headings too: Redoc lets them break anywhere, even inside a word that would fit on a line of its own. */
    html body [data-component-name^="Typography/H"] { word-break: normal; overflow-wrap: break-word; }
    /*
     * On a phone Redoc floats its menu button over the page's bottom right corner, where every
     * row of a table passes under it as the page scrolls. There the button is smaller and sits in
     * a gutter of its own at the right edge: the panels' right padding clears it, and their left
     * padding is narrowed so the text keeps its width. (672 px is where Redoc shows the button.)
     */
    @media screen and (max-width: 672px) {
      html body [data-testid="floating-button"] { width: 44px; height: 44px; right: 4px; bottom: 24px; }
      html body [data-testid="middle-panel"], html body [data-testid="right-panel"] { padding-left: 12px; padding-right: 52px; }
    }
    /*
     * Code samples, response samples and the signing vectors show whole: long lines wrap between
     * words (the copy button copies the sample as written), a token longer than the line scrolls
     * sideways rather than breaking mid-way, and the box grows to the sample's height rather than
     * clipping it at Redoc's 600 px.
     */
    html body pre[data-testid="source-code"], html body [data-component-name="Markdown/Markdown"] pre {
      white-space: pre-wrap; overflow-wrap: normal; word-break: normal; overflow-x: auto; max-height: none;
    }
    /* The sidebar shows a badge whole ("auth: market_data") and breaks titles between words only. */
    .menu-item-type-operation [data-component-name="Tag/Tag"]:not(.tag-http) { max-width: none; width: auto; }
    .menu-item-type-operation [data-component-name="Tag/Tag"]:not(.tag-http) > div { overflow: visible; }
    .menu-item-type-operation li, .menu-item-type-operation li span { word-break: normal; overflow-wrap: normal; }
    /* Redoc's language menu has no TypeScript icon; this one takes the empty icon slot's place. */
    [data-component-name="Dropdown/DropdownMenuItem"] span:has(+ span[title="TypeScript"]):empty::before {
      content: ""; display: inline-block; width: 14px; height: 14px; vertical-align: -2px;
      background: url("${typescriptIconDataUri()}") no-repeat center / contain;
    }
  </style>
</head>
<body>
  {{{redocHTML}}}
</body>
</html>
`;
}

/** Redoc's sidebar footer ("API docs by" + logo) loads the Redocly logo from this CDN at view time. */
const REDOCLY_LOGO_URLS: Record<string, { width: number }> = {
  "https://cdn.redoc.ly/redoc/logo-mini-full.svg": { width: 58 },
  "https://cdn.redoc.ly/redoc/logo-mini.svg": { width: 18 },
};

/** A local stand-in for the Redocly attribution logo: the word "Redocly", drawn inline. */
function attributionLogo(width: number): string {
  const label = width > 30 ? "Redocly" : "R";
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="16" viewBox="0 0 ${width} 16"><text x="0" y="12" font-family="system-ui,sans-serif" font-size="12" font-weight="600" fill="#6e6f7a">${label}</text></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

/**
 * Makes the page built by `redocly build-docs --inlineBundle` load nothing from the network: the
 * only remote asset left in the bundle is the Redocly logo of the sidebar footer, replaced here by
 * an inline image that says the same.
 */
export function makeRedocPageOffline(html: string): string {
  let out = html;
  for (const [url, { width }] of Object.entries(REDOCLY_LOGO_URLS)) {
    out = out.split(url).join(attributionLogo(width));
  }
  return out;
}

/** Problems that make the built page unfit to publish; empty when it is fine. */
export function redocPageProblems(html: string, document?: unknown): string[] {
  const problems: string[] = [];
  if (document !== undefined && !embedsDocument(embeddedDefinition(html), document)) {
    problems.push(`the page does not embed the document published as ${API_DOCUMENT}`);
  }
  if (!html.includes('"disableTelemetry":true')) {
    problems.push("Redoc options lack disableTelemetry:true (was the build run with telemetry off?)");
  }
  if (/<script[^>]+\bsrc=/i.test(html) || /<link[^>]+rel="modulepreload"/i.test(html)) {
    problems.push("the page loads a script from elsewhere (was --inlineBundle given?)");
  }
  for (const url of Object.keys(REDOCLY_LOGO_URLS)) {
    if (html.includes(url)) problems.push(`the page still loads ${url} (did Redoc move its footer logo?)`);
  }
  return problems;
}

/** Whether the page embeds `document`, as written or as Redoc's bundler writes it (an empty `components` added where there was none). */
function embedsDocument(embedded: unknown, document: unknown): boolean {
  if (isDeepStrictEqual(embedded, document)) return true;
  return isObject(document) && document.components === undefined
    ? isDeepStrictEqual(embedded, { ...document, components: {} })
    : false;
}

const DEFINITION_START = "const __redoc_definition = ";

/**
 * The document embedded in a page built by `redocly build-docs` (the argument of Redoc's hydrate
 * call), or undefined when the page has none.
 */
export function embeddedDefinition(html: string): unknown {
  const start = html.indexOf(DEFINITION_START);
  if (start === -1) return undefined;
  const from = start + DEFINITION_START.length;
  const end = html.indexOf("\n", from);
  const text = html
    .slice(from, end === -1 ? undefined : end)
    .trim()
    .replace(/;$/, "");
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
