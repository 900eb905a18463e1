/**
 * Who listens on a TCP port: the processes of a server the tester started, or another program.
 * The tester hands a started server a port that was free a moment before; on a busy machine
 * another program may take it first, and its answers must not be taken for the server's (an
 * order acknowledged there is not in the server's state file). Read from Linux's /proc: the
 * listening sockets' inodes in /proc/net/tcp and tcp6, and the sockets each process holds open.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** "ours": a process of `pids` listens; "another": only others do; "nobody"; "unknown": /proc cannot tell. */
export type PortHolder = "ours" | "another" | "nobody" | "unknown";

/** The TCP state "listen" as /proc/net/tcp writes it. */
const LISTEN = "0A";

/**
 * The inodes of the sockets listening on `port` (any address) in a /proc/net/tcp or tcp6 text:
 * each line after the header is "sl local_address rem_address st … uid timeout inode …", with
 * the address as HEX:HEXPORT.
 */
export function listeningInodes(table: string, port: number): string[] {
  const inodes: string[] = [];
  for (const line of table.split("\n").slice(1)) {
    const fields = line.trim().split(/\s+/);
    const [local, state, inode] = [fields[1], fields[3], fields[9]];
    if (!local || state !== LISTEN || !inode) continue;
    const hexPort = local.slice(local.lastIndexOf(":") + 1);
    if (Number.parseInt(hexPort, 16) === port) inodes.push(inode);
  }
  return inodes;
}

/** Who listens on `port` now, told apart by the sockets the processes `pids` hold. */
export function portHolder(port: number, pids: readonly number[]): PortHolder {
  const tables = ["/proc/net/tcp", "/proc/net/tcp6"].map(readOrUndefined);
  if (tables[0] === undefined) return "unknown";
  const inodes = new Set(
    tables.flatMap((table) => (table === undefined ? [] : listeningInodes(table, port))),
  );
  if (inodes.size === 0) return "nobody";
  for (const pid of pids) {
    for (const socket of socketsOf(pid)) if (inodes.has(socket)) return "ours";
  }
  return "another";
}

/** The inodes of the sockets process `pid` holds open (none once it has ended). */
function socketsOf(pid: number): string[] {
  let descriptors: string[];
  try {
    descriptors = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return [];
  }
  const sockets: string[] = [];
  for (const fd of descriptors) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      const match = /^socket:\[(\d+)\]$/.exec(target);
      if (match?.[1]) sockets.push(match[1]);
    } catch {
      // Closed meanwhile.
    }
  }
  return sockets;
}

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
