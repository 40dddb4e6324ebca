// The kits' own ISO BMFF reading and writing (ISO/IEC 14496-12 §4.2, §8), written
// apart from the gateway's `mp4/` parsers on purpose: the encryptor that makes the
// test vectors must not share a parsing bug with the decryptor it checks.
// Test-only: throws on anything it does not understand.

/** One box: its type and where it lies in the buffer it was read from. */
export interface Box {
  readonly type: string;
  readonly start: number;
  /** Where the payload starts (after the 8- or 16-byte header). */
  readonly body: number;
  readonly end: number;
}

/** The boxes laid end to end in `buf[start, end)`. */
export function readBoxes(buf: Buffer, start = 0, end = buf.length): Box[] {
  const out: Box[] = [];
  let at = start;
  while (at < end) {
    if (end - at < 8) throw new Error(`truncated box header at ${at}`);
    let size = buf.readUInt32BE(at);
    const type = buf.toString("latin1", at + 4, at + 8);
    let header = 8;
    if (size === 1) {
      size = Number(buf.readBigUInt64BE(at + 8));
      header = 16;
    } else if (size === 0) {
      size = end - at;
    }
    if (size < header || at + size > end)
      throw new Error(`box ${type} at ${at} overruns its parent`);
    out.push({ type, start: at, body: at + header, end: at + size });
    at += size;
  }
  return out;
}

/** The children of a plain container box. */
export function childrenOf(buf: Buffer, box: Box): Box[] {
  return readBoxes(buf, box.body, box.end);
}

/** The first box of `type` in `list`, or undefined. */
export function firstOf(list: readonly Box[], type: string): Box | undefined {
  return list.find((b) => b.type === type);
}

/** The first box of `type` in `list`; throws when there is none. */
export function requireBox(list: readonly Box[], type: string): Box {
  const box = firstOf(list, type);
  if (box === undefined) throw new Error(`no ${type} box`);
  return box;
}

/** A FullBox's version and 24-bit flags. */
export function versionAndFlags(buf: Buffer, box: Box): { version: number; flags: number } {
  const vf = buf.readUInt32BE(box.body);
  return { version: vf >>> 24, flags: vf & 0xffffff };
}

/** A box from its type and payload parts (32-bit size: test media stays far below 4 GiB). */
export function writeBox(type: string, ...payload: Buffer[]): Buffer {
  if (type.length !== 4) throw new TypeError(`box type must be 4 characters: ${type}`);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + payload.reduce((n, b) => n + b.length, 0), 0);
  header.write(type, 4, "latin1");
  return Buffer.concat([header, ...payload]);
}

/** A FullBox: version, 24-bit flags, then the payload. */
export function writeFullBox(
  type: string,
  version: number,
  flags: number,
  ...payload: Buffer[]
): Buffer {
  const vf = Buffer.alloc(4);
  vf.writeUInt32BE(((version & 0xff) << 24) | (flags & 0xffffff), 0);
  return writeBox(type, vf, ...payload);
}
