import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { classifyAddress } from "./address-policy.js";

// Literal strings only: nothing here connects anywhere.
const REFUSED: [string, string][] = [
  ["127.0.0.1", "loopback"],
  ["127.0.0.2", "loopback"],
  ["10.1.2.3", "private"],
  ["172.16.0.1", "private"],
  ["192.168.1.1", "private"],
  ["169.254.169.254", "linkLocal"],
  ["100.64.0.1", "carrierGradeNat"],
  ["224.0.0.1", "multicast"],
  ["0.0.0.0", "unspecified"],
  ["255.255.255.255", "broadcast"],
  ["192.0.2.1", "reserved"],
  ["::1", "loopback"],
  ["[::1]", "loopback"],
  ["::", "unspecified"],
  ["fe80::1", "linkLocal"],
  ["fc00::1", "uniqueLocal"],
  ["fd12:3456::1", "uniqueLocal"],
  ["ff02::1", "multicast"],
  ["::ffff:127.0.0.1", "loopback"],
  ["[::ffff:7f00:1]", "loopback"],
  ["::ffff:169.254.169.254", "linkLocal"],
  ["::ffff:10.0.0.1", "private"],
  ["::ffff:0:a00:1", "private"],
  ["64:ff9b::7f00:1", "loopback"],
  ["64:ff9b::a9fe:a9fe", "linkLocal"],
  ["64:ff9b:1::a00:1", "nat64LocalUse"],
  ["2002:7f00:1::1", "loopback"],
  ["2002:c0a8:101::1", "private"],
  ["::7f00:1", "ipv4Compatible"],
  ["2001::1", "teredo"],
  ["2001:db8::1", "reserved"],
  ["localhost", "invalid"],
  ["", "invalid"],
];

const PUBLIC = [
  "8.8.8.8",
  "1.1.1.1",
  "93.184.216.34",
  "2606:4700::1111",
  "[2a00:1450:4001::1]",
  "::ffff:8.8.8.8",
  "64:ff9b::808:808",
  "2002:808:808::1",
];

describe("classifyAddress", () => {
  for (const [literal, range] of REFUSED) {
    it(`refuses ${literal || "(empty)"} as ${range}`, () => {
      assert.deepEqual(classifyAddress(literal), { public: false, range });
    });
  }
  for (const literal of PUBLIC) {
    it(`passes ${literal}`, () => {
      assert.deepEqual(classifyAddress(literal), { public: true });
    });
  }
});
