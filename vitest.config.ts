// `npx vitest run scripts/test/<file>` from the repository's root: the repository's own checks,
// with the suite's shared limits (without a config here, vitest's 5 s default would apply).
export { default } from "./scripts/vitest.config.js";
