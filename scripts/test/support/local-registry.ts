// A real npm registry on 127.0.0.1 for the release test: verdaccio (installed on demand by
// scripts/tools.mjs), listening on a port the system picks, storing into a scratch folder. Anyone
// may publish under @marketapi; nothing is proxied, so a package is there only if it was published.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureTool } from "../../tools.mjs";

export interface LocalRegistry {
  url: string;
  /** The .npmrc lines that send @marketapi to this registry, with a token npm accepts. */
  npmrc: string;
  /** The versions of a package the registry holds ([] when it has none). */
  versions(name: string): Promise<string[]>;
  stop(): Promise<void>;
}

const LAUNCHER = `
const { runServer } = require(process.argv[1]);
runServer(process.argv[2]).then((app) => {
  const server = app.listen(0, "127.0.0.1", () => console.log("listening on " + server.address().port));
});
`;

export async function startLocalRegistry(folder: string): Promise<LocalRegistry> {
  const verdaccio = join(ensureTool("verdaccio"), "node_modules", "verdaccio");
  mkdirSync(join(folder, "storage"), { recursive: true });
  const config = join(folder, "config.yaml");
  writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(join(folder, "storage"))}`,
      "auth:",
      "  htpasswd:",
      `    file: ${JSON.stringify(join(folder, "htpasswd"))}`,
      "uplinks: {}",
      "packages:",
      "  '@marketapi/*':",
      "    access: $all",
      "    publish: $all",
      "  '**':",
      "    access: $all",
      "log: { type: stdout, format: pretty, level: warn }",
      "web: { enable: false }",
      "",
    ].join("\n"),
  );
  const child: ChildProcess = spawn(process.execPath, ["-e", LAUNCHER, verdaccio, config], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const port = await new Promise<number>((resolve, reject) => {
    const onData = (d: Buffer) => {
      output += d;
      const match = /listening on (\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.on("exit", (code) =>
      reject(new Error(`verdaccio exited (${code}) before it listened:\n${output}`)),
    );
  });
  const url = `http://127.0.0.1:${port}/`;
  return {
    url,
    npmrc: `@marketapi:registry=${url}\n//127.0.0.1:${port}/:_authToken=release-test\n`,
    async versions(name) {
      const response = await fetch(`${url}${name.replace("/", "%2f")}`);
      if (response.status === 404) return [];
      const packument = (await response.json()) as { versions?: Record<string, unknown> };
      return Object.keys(packument.versions ?? {});
    },
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.on("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
