// @marketapi/docs as a library: the site as data (generateSite) and writing it (writeSite). The
// marketapi-docs command (cli.ts) is the two in a row, from a spec file.
export type { ApiHistory } from "./changelog-page.js";
export type { RecordExample } from "./endpoint-page.js";
export type { RedocJob } from "./redoc-page.js";
export { type GeneratedFile, generateSite, type Site, SiteSourceError, type SiteSources } from "./site.js";
export { BuildError, runRedoc, type WrittenFile, writeSite } from "./write-site.js";
