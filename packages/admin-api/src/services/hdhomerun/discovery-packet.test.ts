import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { crc32 } from "node:zlib";
import {
  DISCOVER_REPLY,
  discoverReply,
  discoverRequest,
  framePacket,
  parseDiscoverRequest,
  requestMatches,
} from "./discovery-packet.js";

const device = { deviceId: "1013FADA", tunerCount: 3, baseUrl: "http://127.0.0.1:8080/p/k/hdhr" };

/** TLVs of a packet's payload (1 or 2-byte lengths), read independently of the codec. */
function fields(packet: Buffer): Map<number, Buffer> {
  const out = new Map<number, Buffer>();
  const end = 4 + packet.readUInt16BE(2);
  let at = 4;
  while (at < end) {
    const tag = packet[at]!;
    let len = packet[at + 1]!;
    at += 2;
    if (len >= 0x80) {
      len = (len & 0x7f) + packet[at]! * 128;
      at += 1;
    }
    out.set(tag, packet.subarray(at, at + len));
    at += len;
  }
  return out;
}

describe("HDHomeRun discovery packets", () => {
  it("reads a wildcard request and the request for one device id", () => {
    const any = discoverRequest();
    // 4-byte header, two 6-byte TLVs, 4-byte CRC.
    assert.equal(any.length, 20);
    assert.deepEqual(parseDiscoverRequest(any), { deviceType: 1 });
    const one = parseDiscoverRequest(discoverRequest(1, 0x1013fada));
    assert.deepEqual(one, { deviceType: 1, deviceId: 0x1013fada });
    assert.ok(requestMatches(one!, device));
    assert.ok(!requestMatches(parseDiscoverRequest(discoverRequest(1, 0x10a3b7c0))!, device));
    // A storage device (type 5) is not us.
    assert.ok(!requestMatches(parseDiscoverRequest(discoverRequest(5))!, device));
    assert.ok(requestMatches(parseDiscoverRequest(discoverRequest(0xffffffff))!, device));
  });

  it("drops a bad CRC, a wrong type, a wrong length and truncated fields", () => {
    const good = discoverRequest();
    const badCrc = Buffer.from(good);
    badCrc[badCrc.length - 1]! ^= 0xff;
    const reply = framePacket(DISCOVER_REPLY, Buffer.alloc(0));
    const longer = Buffer.concat([good, Buffer.from([0])]);
    const truncated = framePacket(0x0002, Buffer.from([0x01, 0x04, 0x00]));
    const twoByteLenPastEnd = framePacket(0x0002, Buffer.from([0x01, 0x81]));
    for (const [name, p] of Object.entries({ badCrc, reply, longer, truncated, twoByteLenPastEnd }))
      assert.equal(parseDiscoverRequest(p), undefined, name);
    assert.equal(parseDiscoverRequest(Buffer.alloc(3)), undefined);
    assert.equal(parseDiscoverRequest(Buffer.alloc(4000)), undefined);
  });

  it("replies with type, id, tuner count and base URL, CRC little-endian", () => {
    const r = discoverReply(device);
    assert.equal(r.readUInt16BE(0), 0x0003);
    assert.equal(r.readUInt16BE(2), r.length - 8);
    assert.equal(r.readUInt32LE(r.length - 4), crc32(r.subarray(0, r.length - 4)) >>> 0);
    const f = fields(r);
    assert.deepEqual([...f.keys()], [0x01, 0x02, 0x10, 0x2a]);
    assert.equal(f.get(0x01)!.readUInt32BE(0), 1);
    assert.equal(f.get(0x02)!.readUInt32BE(0), 0x1013fada);
    assert.equal(f.get(0x10)![0], 3);
    assert.equal(f.get(0x2a)!.toString(), device.baseUrl);
  });

  it("writes two-byte lengths for values past 127 bytes", () => {
    const baseUrl = `http://127.0.0.1:8080/p/v1${"K".repeat(126)}/hdhr`;
    const f = fields(discoverReply({ ...device, baseUrl }));
    assert.equal(f.get(0x2a)!.toString(), baseUrl);
  });
});
