// The site's look, shared by the Redoc page and the static pages: its name, logo and links (from
// the spec or the build's options, so a fork's site carries the fork's name), and the colours.

import { escapeHtml } from "./html.js";
import { isObject, type JsonObject, objectAt, stringAt } from "./json.js";
import { isRemoteUrl } from "./offline.js";

/** Whose site it is: what titles, the header, the logo and the index's links say. */
export interface SiteBrand {
  /** The name on every page: "Acme Exchange API documentation". */
  name: string;
  /** The logo of the API page's sidebar: the spec's `x-logo`, or one drawn from the name. */
  logo: { url: string; altText: string; href?: string; backgroundColor?: string };
  /** Further reading the index links: the spec's `externalDocs` and `info.contact`. */
  links: { href: string; text: string }[];
}

/** What a build may set instead of the spec. */
export interface BrandOptions {
  /** The site's name (default: the spec's `info.title`). */
  title?: string;
  /** A logo image URL (default: the spec's `info.x-logo.url`, else one drawn from the name). */
  logo?: string;
}

export function brandOf(openapi: JsonObject, options: BrandOptions = {}): SiteBrand {
  const info = objectAt(openapi.info);
  const name = options.title ?? stringAt(info.title) ?? "API";
  const xLogo = objectAt(info["x-logo"]);
  // A remote logo would be fetched by every reader's browser: the site loads nothing from the
  // network, so only a local one (a data: URL, a path inside the site) is shown (remoteLogoOf).
  const url = options.logo ?? localLogo(stringAt(xLogo.url));
  const logo = url
    ? {
        url,
        altText: stringAt(xLogo.altText) ?? name,
        href: stringAt(xLogo.href) ?? "index.html",
        ...(stringAt(xLogo.backgroundColor) ? { backgroundColor: stringAt(xLogo.backgroundColor) } : {}),
      }
    : { url: wordmarkDataUri(name), altText: name, href: "index.html" };
  return { name, logo, links: linksOf(openapi) };
}

function localLogo(url: string | undefined): string | undefined {
  return url === undefined || isRemoteUrl(url) ? undefined : url;
}

/** The spec's logo where it is remote and so not shown (the command says so), else undefined. */
export function remoteLogoOf(openapi: JsonObject): string | undefined {
  const url = stringAt(objectAt(objectAt(openapi.info)["x-logo"]).url);
  return url !== undefined && isRemoteUrl(url) ? url : undefined;
}

/** externalDocs (of the document) and info.contact, as the spec states them. */
function linksOf(openapi: JsonObject): SiteBrand["links"] {
  const links: SiteBrand["links"] = [];
  const docs = objectAt(openapi.externalDocs);
  const docsUrl = stringAt(docs.url);
  if (docsUrl) links.push({ href: docsUrl, text: stringAt(docs.description) ?? docsUrl });
  const contact = isObject(objectAt(openapi.info).contact) ? objectAt(objectAt(openapi.info).contact) : {};
  const contactName = stringAt(contact.name);
  const contactUrl = stringAt(contact.url);
  const email = stringAt(contact.email);
  if (contactUrl) links.push({ href: contactUrl, text: contactName ? `${contactName}` : contactUrl });
  if (email)
    links.push({
      href: `mailto:${email}`,
      text: contactUrl || !contactName ? email : `${contactName} (${email})`,
    });
  return links;
}

/** The links as HTML list items. */
export function linkItems(brand: SiteBrand): string {
  return brand.links
    .map((link) => `<li><a href="${escapeHtml(link.href)}">${escapeHtml(link.text)}</a></li>`)
    .join("\n");
}

/** The first letter of the name, for the mark and the favicon. */
export function initialOf(name: string): string {
  return (name.trim()[0] ?? "A").toLowerCase();
}

export const BRAND = {
  /** Teal scale; step 6 is the primary colour (white text on it has a contrast of about 5:1). */
  palette: {
    1: "#effcf9",
    2: "#dff6f1",
    3: "#c6ede5",
    4: "#a6e0d4",
    5: "#6cc2b2",
    6: "#0d7a6b",
    7: "#0b6b5e",
    8: "#0a5c51",
    9: "#094d44",
    10: "#08443c",
    11: "#0d3d38",
  },
} as const;

function svgDataUri(svg: string): string {
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

const xmlText = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** The wordmark: a teal square with the name's initial, and the name, drawn inline (no request). */
export function wordmarkDataUri(name: string): string {
  const { palette } = BRAND;
  const width = Math.max(150, 48 + Math.ceil(name.length * 10.5));
  return svgDataUri(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="32" viewBox="0 0 ${width} 32"><rect width="32" height="32" rx="7" fill="${palette[6]}"/><text x="16" y="22" text-anchor="middle" font-family="system-ui,sans-serif" font-size="18" font-weight="700" fill="#fff">${xmlText(initialOf(name))}</text><text x="40" y="22" font-family="system-ui,sans-serif" font-size="18" font-weight="600" fill="${palette[9]}">${xmlText(name)}</text></svg>`,
  );
}

/** A <link rel="icon"> with an inline image of the name's initial, so that browsers do not ask for /favicon.ico. */
export function faviconLink(name: string): string {
  const icon = svgDataUri(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="${BRAND.palette[6]}"/><text x="16" y="23" text-anchor="middle" font-family="system-ui,sans-serif" font-size="20" font-weight="700" fill="#fff">${xmlText(initialOf(name))}</text></svg>`,
  );
  return `<link rel="icon" href="${icon}">`;
}

/**
 * An icon for TypeScript samples in Redoc's language menu, which has icons for curl, Python and
 * others but none for TypeScript: the letters "TS" on a blue square, drawn inline.
 */
export function typescriptIconDataUri(): string {
  return svgDataUri(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 14 14"><rect width="14" height="14" rx="2" fill="#3178c6"/><text x="13" y="12.2" text-anchor="end" font-family="system-ui,sans-serif" font-size="7.5" font-weight="700" fill="#fff">TS</text></svg>`,
  );
}
