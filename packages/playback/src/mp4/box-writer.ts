import { type BoxHeader, boxesIn } from "./box-reader.js";
import { childrenStart } from "./container-layout.js";
import { guard, type Result, raise } from "./parse-result.js";

/**
 * What to do with one box while rebuilding a tree:
 * - `keep`: copy its bytes unchanged;
 * - `remove`: drop it;
 * - `descend`: rebuild its children with the same visitor (optionally renaming the box);
 * - `replace`: emit the given complete box bytes instead.
 */
export type BoxAction =
  | { kind: "keep" }
  | { kind: "remove" }
  | { kind: "descend"; rename?: string }
  | { kind: "replace"; bytes: Buffer };

/** Decides the {@link BoxAction} for `box`; `path` lists the types of its ancestors, outermost first. */
export type BoxVisitor = (box: BoxHeader, path: readonly string[]) => BoxAction;

/**
 * Serialises a box from a type and payload parts, choosing a 64-bit size only
 * when the size does not fit 32 bits (ISO/IEC 14496-12 §4.2).
 */
export function writeBox(type: string, ...payload: Buffer[]): Buffer {
  if (type.length !== 4) throw new TypeError(`box type must be 4 characters: ${type}`);
  const body = payload.reduce((n, b) => n + b.length, 0);
  const large = body + 8 > 0xffffffff;
  const header = Buffer.alloc(large ? 16 : 8);
  if (large) {
    header.writeUInt32BE(1, 0);
    header.writeBigUInt64BE(BigInt(body + 16), 8);
  } else {
    header.writeUInt32BE(body + 8, 0);
  }
  header.write(type, 4, "latin1");
  return Buffer.concat([header, ...payload]);
}

/** Serialises a FullBox: version, 24-bit flags, then the payload. */
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

/**
 * Rebuilds `box` by applying `visit` to each descendant of the containers
 * the visitor descends into, recomputing every size on the way up.
 * The fixed fields between a container's header and its first child (e.g. a
 * sample entry's width/height) are copied verbatim.
 *
 * @example
 * // drop every pssh from a moov
 * const r = rebuildBox(init, moov, (b) => (b.type === 'pssh' ? { kind: 'remove' } : { kind: 'keep' }));
 */
export function rebuildBox(
  buf: Buffer,
  box: BoxHeader,
  visit: BoxVisitor,
  rename?: string,
): Result<Buffer> {
  return guard(box.type, () => rebuildInto(buf, box, visit, [], rename));
}

function rebuildInto(
  buf: Buffer,
  box: BoxHeader,
  visit: BoxVisitor,
  path: readonly string[],
  rename?: string,
): Buffer {
  const first = childrenStart(buf, box);
  if (first === null) raise(box.type, "not a container that can be rebuilt");
  const children = boxesIn(buf, first, box.end, box.type);
  const innerPath = [...path, box.type];
  const parts: Buffer[] = [];
  // Fixed fields between the header and the first child (full-box fields, sample entry fields).
  parts.push(buf.subarray(box.start + box.headerSize, first));
  for (const child of children) {
    const action = visit(child, innerPath);
    switch (action.kind) {
      case "keep":
        parts.push(buf.subarray(child.start, child.end));
        break;
      case "remove":
        break;
      case "replace":
        parts.push(action.bytes);
        break;
      case "descend":
        parts.push(rebuildInto(buf, child, visit, innerPath, action.rename));
        break;
    }
  }
  const type = rename ?? box.type;
  return writeBox(type, ...parts);
}
