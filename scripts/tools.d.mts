// Types of tools.mjs, for the TypeScript tests that import it.
export function toolsCache(): string;
export function ensureTool(name: string): string;
