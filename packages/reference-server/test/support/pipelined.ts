// HTTP/1.1 pipelining over one raw socket: every request is written at once, the answers are read
// back in order. The server then has many requests of one connection in flight together (Node's
// client never pipelines, so this is done by hand).
import { connect } from "node:net";

export interface PipelinedRequest {
  method: string;
  /** Path with its query string. */
  target: string;
  headers?: Record<string, string>;
}

export interface PipelinedAnswer {
  status: number;
  body: string;
}

export function pipeline(baseUrl: string, requests: readonly PipelinedRequest[]): Promise<PipelinedAnswer[]> {
  const url = new URL(baseUrl);
  const text = requests
    .map((r) => {
      const headers = Object.entries({ Host: url.host, ...r.headers })
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join("");
      return `${r.method} ${r.target} HTTP/1.1\r\n${headers}\r\n`;
    })
    .join("");
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const answers: PipelinedAnswer[] = [];
    let buffer = Buffer.alloc(0);
    socket.on("connect", () => socket.write(text));
    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const parsed = nextAnswer(buffer);
        if (!parsed) break;
        answers.push(parsed.answer);
        buffer = buffer.subarray(parsed.length);
      }
      if (answers.length === requests.length) {
        socket.end();
        resolve(answers);
      }
    });
    socket.on("error", reject);
    socket.on("close", () => {
      if (answers.length < requests.length)
        reject(new Error(`the connection closed after ${answers.length} of ${requests.length} answers`));
    });
  });
}

/** One complete answer at the start of `buffer` (framed by Content-Length), if there is one yet. */
function nextAnswer(buffer: Buffer): { answer: PipelinedAnswer; length: number } | undefined {
  const end = buffer.indexOf("\r\n\r\n");
  if (end < 0) return undefined;
  const head = buffer.subarray(0, end).toString("latin1");
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
  if (buffer.length < end + 4 + length) return undefined;
  const body = buffer.subarray(end + 4, end + 4 + length).toString("utf8");
  return { answer: { status, body }, length: end + 4 + length };
}
