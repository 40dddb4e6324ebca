import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { Socket } from "node:net";
import { endianness } from "node:os";

/**
 * A process as the kernel knows it: pid plus its start time (field 22 of `/proc/<pid>/stat`,
 * clock ticks since boot), so a recycled pid never passes for the process it replaced.
 */
export interface ProcessIdentity {
  readonly pid: number;
  readonly startTime: string;
}

/** The identity of a live process, or undefined when it has gone (read synchronously). */
export function processIdentity(pid: number): ProcessIdentity | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // comm (field 2) may hold spaces and parentheses: count fields after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const startTime = fields[19];
    return startTime === undefined ? undefined : { pid, startTime };
  } catch {
    return undefined;
  }
}

/** `127.0.0.1` as `/proc/net/tcp` prints it: the 32-bit address in host byte order, in hex. */
function procAddress(ipv4: string): string | undefined {
  const parts = ipv4
    .replace(/^::ffff:/, "")
    .split(".")
    .map(Number);
  if (parts.length !== 4 || parts.some((p) => !(p >= 0 && p <= 255))) return undefined;
  const ordered = endianness() === "LE" ? parts.reverse() : parts;
  return ordered
    .map((p) => p.toString(16).padStart(2, "0"))
    .join("")
    .toUpperCase();
}

const hexPort = (port: number) => port.toString(16).padStart(4, "0").toUpperCase();

/**
 * The inode of the client end of a TCP connection this process accepted on loopback:
 * the `/proc/net/tcp` row whose local address is our peer and whose remote address is us.
 */
async function clientSocketInode(socket: Socket): Promise<string | undefined> {
  const peer = procAddress(socket.remoteAddress ?? "");
  const us = procAddress(socket.localAddress ?? "");
  if (peer === undefined || us === undefined) return undefined;
  const local = `${peer}:${hexPort(socket.remotePort ?? 0)}`;
  const remote = `${us}:${hexPort(socket.localPort ?? 0)}`;
  const table = await readFile("/proc/net/tcp", "utf8").catch(() => "");
  const pair = `${local} ${remote} `;
  for (const line of table.split("\n")) {
    // Split only the one row that names the pair: the table has a row per socket.
    if (!line.includes(pair)) continue;
    const f = line.trim().split(/\s+/);
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
    if (f[1] === local && f[2] === remote && f[9] !== undefined && f[9] !== "0") return f[9];
  }
  return undefined;
}

/**
 * Does the client end of `socket` (a loopback connection we accepted) belong to one of
 * `candidates`? Linux only: the client socket's inode comes from `/proc/net/tcp`, and a
 * candidate holds it when one of its `/proc/<pid>/fd` links reads `socket:[inode]` (a
 * process of the same user, so its fd table is readable). A candidate whose start time no
 * longer matches has exited and its pid was recycled: it never matches.
 *
 * This is how the egress proxy tells the ffmpeg it started from any other local process,
 * without a credential on ffmpeg's command line, where every local user could read it.
 */
export async function owningProcess<T extends ProcessIdentity>(
  socket: Socket,
  candidates: Iterable<T>,
): Promise<T | undefined> {
  const list = [...candidates];
  if (list.length === 0) return undefined;
  const inode = await clientSocketInode(socket);
  if (inode === undefined) return undefined;
  const link = `socket:[${inode}]`;
  // Synchronous on purpose: /proc answers from memory, and one thread-pool round trip per
  // descriptor cost more than the whole scan of an ffmpeg's dozen descriptors.
  const readlinkOrEmpty = (path: string) => {
    try {
      return readlinkSync(path);
    } catch {
      return "";
    }
  };
  for (const candidate of list) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${candidate.pid}/fd`);
    } catch {
      // gone, or not ours to read
    }
    for (const fd of fds) {
      const target = readlinkOrEmpty(`/proc/${candidate.pid}/fd/${fd}`);
      if (target !== link) continue;
      const now = processIdentity(candidate.pid);
      return now?.startTime === candidate.startTime ? candidate : undefined;
    }
  }
  return undefined;
}
