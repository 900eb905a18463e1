// Running the code samples of the built document as a reader would: each one written to a file and
// run by bash, python3 or node with only the sample variables (and PATH) in its environment, in
// front of a loopback proxy that records what each one sent.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command with stdin closed and the given environment; resolves when it exits, however long
 * that takes on a loaded machine (the test's limit, set for hangs, stops one that never does).
 */
export function runProcess(
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code, signal) =>
      resolve({ code, stdout, stderr: signal ? `${stderr}\n(killed by ${signal})` : stderr }),
    );
  });
}

/** The absolute path of a command on PATH, or undefined. */
export function which(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(dir, command);
    if (dir !== "" && existsSync(candidate)) return candidate;
  }
  return undefined;
}

let python: string | undefined;

/**
 * The Python interpreter that `python3` on PATH starts, asked of it once. That `python3` may be a
 * version manager's shim (pyenv's is a bash script that runs pyenv to pick the version), and the
 * shim cost about 0.7 s of CPU a start here, several times the sample it starts. The samples run
 * under the interpreter the shim picks, the one a reader's `python3 sample.py` runs. Where
 * `python3` does not start, this is "python3", and running it says why.
 */
export function pythonInterpreter(): string {
  if (python === undefined) {
    const asked = spawnSync("python3", ["-c", "import sys; print(sys.executable)"], {
      env: { PATH: process.env.PATH ?? "" },
      encoding: "utf8",
    });
    const executable = asked.status === 0 ? asked.stdout.trim() : "";
    python = executable !== "" && existsSync(executable) ? executable : "python3";
  }
  return python;
}

export interface RecordedRequest {
  method: string;
  /** The path without the query string. */
  path: string;
  /** The query string as sent, without `?`. */
  query: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The status the server answered with. */
  status: number;
}

export interface RecordingProxy {
  url: string;
  /** The requests recorded since the last call, oldest first. */
  take(): RecordedRequest[];
  close(): Promise<void>;
}

/** A loopback HTTP proxy in front of `target` that records every request and its answer's status. */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const upstream = new URL(target);
  let recorded: RecordedRequest[] = [];
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const body = Buffer.concat(chunks);
      const url = incoming.url ?? "/";
      const queryAt = url.indexOf("?");
      const entry: RecordedRequest = {
        method: incoming.method ?? "GET",
        path: queryAt === -1 ? url : url.slice(0, queryAt),
        query: queryAt === -1 ? "" : url.slice(queryAt + 1),
        headers: incoming.headers,
        body: body.toString("utf8"),
        status: 0,
      };
      recorded.push(entry);
      const forward = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: entry.method,
          path: url,
          headers: { ...incoming.headers, host: upstream.host },
        },
        (answer) => {
          entry.status = answer.statusCode ?? 0;
          outgoing.writeHead(entry.status, answer.headers);
          answer.pipe(outgoing);
        },
      );
      forward.on("error", (error) => {
        outgoing.writeHead(502, { "content-type": "text/plain" }).end(`proxy: ${error.message}`);
      });
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    take() {
      const out = recorded;
      recorded = [];
      return out;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

export interface TypeScriptProject {
  dir: string;
  /** The source file of a sample, by name. */
  source(name: string): string;
  /** The compiled JavaScript file of a sample, by name. */
  compiled(name: string): string;
  /** Runs `tsc -p` on the project. */
  typeCheck(): Promise<ProcessResult>;
  remove(): void;
}

/** The compiler options of a strict consumer project, stricter than `strict` alone. */
export const SAMPLE_COMPILER_OPTIONS = {
  strict: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  noImplicitOverride: true,
  target: "ES2022",
  module: "NodeNext",
  moduleResolution: "NodeNext",
  lib: ["ES2023"],
  types: ["node"],
  skipLibCheck: true,
  noEmitOnError: true,
  outDir: "out",
  rootDir: "src",
};

/**
 * A consumer project in a temporary folder: an ES module package whose node_modules holds
 * @marketapi/client and @types/node (links to the installed ones), with one file per sample.
 */
export function typeScriptProject(samples: ReadonlyMap<string, string>): TypeScriptProject {
  const dir = mkdtempSync(join(tmpdir(), "marketapi-docs-samples-"));
  const require = createRequire(import.meta.url);
  const link = (name: string) => {
    const target = dirname(require.resolve(`${name}/package.json`));
    mkdirSync(dirname(join(dir, "node_modules", name)), { recursive: true });
    symlinkSync(target, join(dir, "node_modules", name), "dir");
  };
  link("@marketapi/client");
  link("@types/node");
  writeFileSync(join(dir, "package.json"), `${JSON.stringify({ private: true, type: "module" })}\n`);
  writeFileSync(
    join(dir, "tsconfig.json"),
    `${JSON.stringify({ compilerOptions: SAMPLE_COMPILER_OPTIONS, include: ["src"] }, null, 2)}\n`,
  );
  mkdirSync(join(dir, "src"));
  for (const [name, text] of samples) writeFileSync(join(dir, "src", `${name}.ts`), text);
  const tsc = join(dirname(require.resolve("typescript/package.json")), "bin", "tsc");
  return {
    dir,
    source: (name) => join(dir, "src", `${name}.ts`),
    compiled: (name) => join(dir, "out", `${name}.js`),
    typeCheck: () => runProcess(process.execPath, [tsc, "-p", dir], { PATH: process.env.PATH ?? "" }),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A folder for the shell and Python samples' files. */
export function sampleFolder(): {
  path(name: string): string;
  write(name: string, text: string): string;
  remove(): void;
} {
  const dir = mkdtempSync(join(tmpdir(), "marketapi-docs-samples-"));
  return {
    path: (name) => join(dir, name),
    write(name, text) {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
