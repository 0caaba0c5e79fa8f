// The strict msgpack codec and the message layer: what gin.protocol.wire.channel refuses is refused
// here too (the full verdict corpus from gin/ is checked by npm run conformance),
// and the encoder writes msgpack-python's bytes.
import assert from "node:assert/strict";
import { test } from "node:test";

import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { decode, encode, Float, UndecodableData, type Value } from "../src/protocol/wire/msgpack.ts";
import { MalformedMessage, pack, unpack } from "../src/protocol/wire/channel.ts";
import { PROTOCOL_CHECKS, tokens } from "../scripts/protocol_checks.ts";

const HEAD = "83a174a178a17604a16e"; // {"t": "x", "v": 4, "n": ...}
const refused = (hex: string, pattern: RegExp) =>
  assert.throws(() => unpack(hexToBytes(hex)), (exc: unknown) => exc instanceof MalformedMessage && pattern.test(exc.message));

test("pack writes msgpack-python's bytes: the §13 hello message", () => {
  assert.equal(bytesToHex(pack("hello", new Map([["n", 1]]))), "83a174a568656c6c6fa17604a16e01");
  const message = unpack(pack("hello", new Map([["n", 1]])));
  assert.equal(message.type, "hello");
  assert.equal(message.integer("n", 0, 5), 1);
});

test("refusals: repeated keys, bad UTF-8, extensions, trailing bytes, depth, limits", () => {
  refused(HEAD + "82a16101a16102", /repeats a key/);
  refused("83a174a178a17604a174a179", /repeats a key/);
  refused(HEAD + "a3eda080", /UTF-8/);
  refused(HEAD + "d40100", /starts no allowed value/);
  refused(HEAD + "c1", /starts no allowed value/);
  refused(HEAD + "0100", /extra data/);
  refused(HEAD + "92c0", /incomplete/);
  refused(HEAD + "8101c0", /int is not allowed for map key/);
  refused(HEAD + "dc0101" + "c0".repeat(257), /257 exceeds max_array_len/);
  // The top map counts: 1024 containers open at once, empty ones included, and no more.
  refused(HEAD + "91".repeat(1024) + "c0", /nested deeper than 1024/);
  refused(HEAD + "91".repeat(1023) + "90", /nested deeper than 1024/);
  assert.doesNotThrow(() => unpack(hexToBytes(HEAD + "91".repeat(1023) + "c0")));
  assert.doesNotThrow(() => unpack(hexToBytes(HEAD + "91".repeat(1022) + "90")));
  refused("83a174a178a176cb4000000000000000a16ec0", /field 'v': expected an integer, got float/);
  refused("82a174a0a17604", /empty message type/);
  refused("82a174a178a17603", /unsupported protocol version 3/); // a gin of protocol 3
});

test("decoding keeps types apart: ints by size, floats wrapped, bytes keys, map order", () => {
  const value = decode(hexToBytes("84a162c40101a161cf0000000000000005c40161ca3fc00000a17acfffffffffffffffff"));
  assert.ok(value instanceof Map);
  assert.deepEqual([...value.keys()].map((k) => typeof k), ["string", "string", "object", "string"]);
  assert.equal(value.get("a"), 5);
  assert.equal(value.get("z"), 2n ** 64n - 1n);
  assert.deepEqual(tokens(value).slice(0, 3), [["map", 4], ["str", "b"], ["bin", "01"]]);
  assert.throws(() => decode(new Uint8Array(0)), UndecodableData);
  // Re-encoding writes the smallest forms (5 as a fixint) and floats as float64.
  assert.equal(bytesToHex(encode(value)), "84a162c40101a16105c40161cb3ff8000000000000a17acfffffffffffffffff");
  const sample: Value[] = [-1, -33, -129, -32769, -(2 ** 31) - 1, 2 ** 32, new Float(0.5), "é".repeat(20), null, true];
  assert.equal(bytesToHex(encode(sample)), "9affd0dfd1ff7fd2ffff7fffd3ffffffff7fffffffcf0000000100000000cb3fe0000000000000d928" + "c3a9".repeat(20) + "c0c3");
});

test("the unpack check fails when gin/'s verdict differs", () => {
  const data = HEAD + "01";
  assert.equal(PROTOCOL_CHECKS.unpack!({ kind: "unpack", data, type: "x", version: 4,
    fields: [["map", 3], ["str", "t"], ["str", "x"], ["str", "v"], ["int", "4"], ["str", "n"], ["int", "1"]], canonical: true }), null);
  assert.match(PROTOCOL_CHECKS.unpack!({ kind: "unpack", data, error_field: "" })!, /refuses .* accepts it/);
  assert.match(PROTOCOL_CHECKS.unpack!({ kind: "unpack", data: HEAD, type: "x" })!, /accepts .* refuses it/);
});
