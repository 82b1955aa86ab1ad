// SPDX-License-Identifier: MIT OR Apache-2.0
// Solidity ABI encoding (abi.encode) of one leaf, as @openzeppelin/merkle-tree encodes a
// StandardMerkleTree row: address, bool, uintN, intN, bytesN, bytes, string, arrays T[] and
// T[k], tuples (T1,...). Written from the Solidity ABI specification. Rows whose types are
// all static are written straight into one buffer at a fixed stride (the fast path of
// StandardMerkleTree.of).
'use strict';

const TYPE_CACHE = new Map();

function parseType(t) {
  const cached = TYPE_CACHE.get(t);
  if (cached) return cached;
  const type = parseTypeUncached(t.trim());
  TYPE_CACHE.set(t, type);
  return type;
}

function splitTop(s) {
  const parts = [];
  let depth = 0, start = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '(') depth++;
    else if (s[i] === ')') depth--;
    else if (s[i] === ',' && depth === 0) { parts.push(s.slice(start, i)); start = i + 1; }
  }
  if (s.length) parts.push(s.slice(start));
  return parts;
}

function parseTypeUncached(t) {
  const arr = t.match(/^(.*)\[(\d*)\]$/s);
  if (arr) {
    const elem = parseType(arr[1]);
    const len = arr[2] === '' ? -1 : Number(arr[2]);
    const dynamic = len < 0 || elem.dynamic;
    return { kind: 'array', elem, len, dynamic, size: dynamic ? 32 : len * elem.size, name: t };
  }
  if (t.startsWith('(') && t.endsWith(')')) {
    const comps = splitTop(t.slice(1, -1)).map(parseType);
    const dynamic = comps.some((c) => c.dynamic);
    return { kind: 'tuple', comps, dynamic, size: dynamic ? 32 : comps.reduce((a, c) => a + c.size, 0), name: t };
  }
  if (t === 'address' || t === 'bool' || t === 'string' || t === 'bytes')
    return { kind: t, dynamic: t === 'string' || t === 'bytes', size: 32, name: t };
  let m = t.match(/^(u?)int(\d*)$/);
  if (m) {
    const bits = m[2] === '' ? 256 : Number(m[2]);
    if (!(bits >= 8 && bits <= 256 && bits % 8 === 0)) throw new TypeError(`Invalid number type "${t}"`);
    return { kind: m[1] ? 'uint' : 'int', bits, dynamic: false, size: 32, name: t };
  }
  m = t.match(/^bytes(\d+)$/);
  if (m) {
    const n = Number(m[1]);
    if (!(n >= 1 && n <= 32)) throw new TypeError(`Invalid fixed bytes type "${t}"`);
    return { kind: 'bytesN', n, dynamic: false, size: 32, name: t };
  }
  throw new TypeError(`Unsupported ABI type "${t}"`);
}

const HEX = /^(0x)?[0-9a-fA-F]*$/;

function toBytes(v, what) {
  if (v instanceof Uint8Array) return v;
  if (typeof v === 'string') {
    if (!HEX.test(v) || v.replace(/^0x/, '').length % 2) throw new TypeError(`Invalid hex for ${what}: "${v}"`);
    return Buffer.from(v.replace(/^0x/, ''), 'hex');
  }
  if (Array.isArray(v)) return Uint8Array.from(v);
  throw new TypeError(`Expected bytes for ${what}`);
}

function toBigInt(v, type) {
  let x;
  if (typeof v === 'bigint') x = v;
  else if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) throw new TypeError(`Number ${v} is not a safe integer for ${type.name}`);
    x = BigInt(v);
  } else if (typeof v === 'string') {
    const s = v.trim();
    if (!/^-?(0x[0-9a-fA-F]+|[0-9]+)$/.test(s)) throw new TypeError(`Invalid number "${v}" for ${type.name}`);
    x = s.startsWith('-') ? -BigInt(s.slice(1)) : BigInt(s);
  } else throw new TypeError(`Expected a number for ${type.name}`);
  const bits = BigInt(type.bits);
  if (type.kind === 'uint') {
    if (x < 0n || x >= 1n << bits) throw new RangeError(`Number "${x}" is out of range for type "${type.name}".`);
  } else if (x < -(1n << (bits - 1n)) || x >= 1n << (bits - 1n)) {
    throw new RangeError(`Number "${x}" is out of range for type "${type.name}".`);
  }
  return x;
}

function writeWord(buf, off, x) {
  // x: BigInt in [-(2^255), 2^256); two's complement in 32 bytes, big-endian
  if (x < 0n) x += 1n << 256n;
  if (x < 1n << 53n) {
    buf.fill(0, off, off + 32);
    let n = Number(x);
    for (let i = 31; n > 0; i--) { buf[off + i] = n % 256; n = Math.floor(n / 256); }
    return;
  }
  const hex = x.toString(16).padStart(64, '0');
  buf.write(hex, off, 32, 'hex');
}

// Size in bytes of the encoding of value v of type t (head + tail for dynamic ones).
function encodedSize(t, v) {
  if (!t.dynamic) return t.size;
  switch (t.kind) {
    case 'bytes': return 32 + Math.ceil(toBytes(v, 'bytes').length / 32) * 32;
    case 'string': return 32 + Math.ceil(Buffer.byteLength(String(v), 'utf8') / 32) * 32;
    case 'array': {
      if (!Array.isArray(v)) throw new TypeError(`Expected an array for ${t.name}`);
      if (t.len >= 0 && v.length !== t.len) throw new TypeError(`Expected ${t.len} elements for ${t.name}`);
      let s = t.len < 0 ? 32 : 0;
      for (const e of v) s += t.elem.dynamic ? 32 + encodedSize(t.elem, e) : t.elem.size;
      return s;
    }
    case 'tuple': {
      if (!Array.isArray(v) || v.length !== t.comps.length) throw new TypeError(`Expected ${t.comps.length} components for ${t.name}`);
      let s = 0;
      t.comps.forEach((c, i) => { s += c.dynamic ? 32 + encodedSize(c, v[i]) : c.size; });
      return s;
    }
  }
  throw new TypeError(`bad type ${t.name}`);
}

// Write the head-and-tail encoding of values vs of types ts at buf[off..); returns the end.
function encodeSeq(buf, off, ts, vs) {
  let head = off;
  let tail = off + ts.reduce((a, t) => a + (t.dynamic ? 32 : t.size), 0);
  for (let i = 0; i < ts.length; i++) {
    const t = ts[i];
    if (t.dynamic) {
      writeWord(buf, head, BigInt(tail - off));
      head += 32;
      tail = encodeOne(buf, tail, t, vs[i]);
    } else {
      head = encodeOne(buf, head, t, vs[i]);
    }
  }
  return tail;
}

// Hex digit values by character code (-1: not a hex digit).
const HEXVAL = new Int8Array(128).fill(-1);
for (let c = 0; c < 10; c++) HEXVAL[48 + c] = c;
for (let c = 0; c < 6; c++) { HEXVAL[65 + c] = 10 + c; HEXVAL[97 + c] = 10 + c; }

// '0x' + 40 hex digits into buf[off..off+20); false (nothing written) when v is not that form.
function writeAddressHex(buf, off, v) {
  if (v.length !== 42 || v.charCodeAt(0) !== 48 || (v.charCodeAt(1) | 32) !== 120) return false;
  for (let i = 2; i < 42; i++) if ((v.charCodeAt(i) & ~127) || HEXVAL[v.charCodeAt(i)] < 0) return false;
  for (let i = 0, j = 2; i < 20; i++, j += 2) buf[off + i] = (HEXVAL[v.charCodeAt(j)] << 4) | HEXVAL[v.charCodeAt(j + 1)];
  return true;
}

// A string of 1 to 45 decimal digits (< 2^150: within every uint/int of 160 bits or more)
// into the low bytes of the zeroed word at buf[off..off+32), without a BigInt: 7-digit chunks
// into 24-bit limbs (every product and carry stays below 2^53, so the arithmetic on doubles is
// exact). False (nothing written) when v is not such a string.
const LIMBS = new Float64Array(8);
function writeDecimal(buf, off, v) {
  const n = v.length;
  if (n === 0 || n > 45) return false;
  for (let i = 0; i < n; i++) { const c = v.charCodeAt(i) - 48; if (c < 0 || c > 9) return false; }
  let used = 1;
  LIMBS[0] = 0;
  for (let i = 0, len = n % 7 || 7; i < n; i += len, len = 7) {
    let carry = 0, mul = 1;
    for (let j = i; j < i + len; j++) { carry = carry * 10 + (v.charCodeAt(j) - 48); mul *= 10; }
    for (let k = 0; k < used; k++) {
      const x = LIMBS[k] * mul + carry;
      carry = Math.floor(x / 16777216);
      LIMBS[k] = x - carry * 16777216;
    }
    if (carry) LIMBS[used++] = carry;
  }
  // LIMBS[k] holds bits 24k..24k+23; 150 bits need at most 7 limbs (21 bytes)
  for (let k = 0, o = off + 31; k < used; k++, o -= 3) {
    const l = LIMBS[k];
    buf[o] = l & 255;
    buf[o - 1] = (l >>> 8) & 255;
    buf[o - 2] = l >>> 16;
  }
  return true;
}

// Every buffer encodeOne writes into is zero-filled beforehand (Buffer.alloc), so padding
// and the high bytes of small words are never written.
function encodeOne(buf, off, t, v) {
  switch (t.kind) {
    case 'address': {
      if (typeof v === 'string' && writeAddressHex(buf, off + 12, v)) return off + 32;
      const b = toBytes(v, 'address');
      if (b.length !== 20) throw new TypeError(`Invalid address length ${b.length}`);
      buf.set(b, off + 12);
      return off + 32;
    }
    case 'bool':
      if (typeof v !== 'boolean') throw new TypeError(`Expected a boolean, got ${typeof v}`);
      buf[off + 31] = v ? 1 : 0;
      return off + 32;
    case 'uint':
    case 'int':
      if (!(typeof v === 'string' && t.bits >= 160 && writeDecimal(buf, off, v))) writeWord(buf, off, toBigInt(v, t));
      return off + 32;
    case 'bytesN': {
      const b = toBytes(v, t.name);
      if (b.length > t.n) throw new RangeError(`Expected at most ${t.n} bytes for ${t.name}, got ${b.length}`);
      buf.set(b, off);
      return off + 32;
    }
    case 'bytes':
    case 'string': {
      const b = t.kind === 'string' ? Buffer.from(String(v), 'utf8') : toBytes(v, 'bytes');
      writeWord(buf, off, BigInt(b.length));
      const padded = Math.ceil(b.length / 32) * 32;
      buf.set(b, off + 32);
      return off + 32 + padded;
    }
    case 'array': {
      if (!Array.isArray(v)) throw new TypeError(`Expected an array for ${t.name}`);
      if (t.len >= 0 && v.length !== t.len) throw new TypeError(`Expected ${t.len} elements for ${t.name}`);
      let o = off;
      if (t.len < 0) { writeWord(buf, o, BigInt(v.length)); o += 32; }
      return encodeSeq(buf, o, v.map(() => t.elem), v);
    }
    case 'tuple':
      if (!Array.isArray(v) || v.length !== t.comps.length) throw new TypeError(`Expected ${t.comps.length} components for ${t.name}`);
      return encodeSeq(buf, off, t.comps, v);
  }
  throw new TypeError(`bad type ${t.name}`);
}

// abi.encode(types, values) -> Buffer
function encode(types, values) {
  const ts = types.map(parseType);
  if (!Array.isArray(values) || values.length !== ts.length)
    throw new TypeError(`Expected ${ts.length} values, got ${Array.isArray(values) ? values.length : typeof values}`);
  let size = 0;
  ts.forEach((t, i) => { size += t.dynamic ? 32 + encodedSize(t, values[i]) : t.size; });
  const buf = Buffer.alloc(size);
  const end = encodeSeq(buf, 0, ts, values);
  if (end !== size) throw new Error('internal: ABI size mismatch');
  return buf;
}

// Encodings of many rows: {data, stride} when every type is static (fixed-size rows laid end
// to end), {data, offsets} otherwise.
function encodeRows(types, rows) {
  const ts = types.map(parseType);
  if (ts.every((t) => !t.dynamic)) {
    const stride = ts.reduce((a, t) => a + t.size, 0);
    const data = Buffer.alloc(stride * rows.length);
    for (let r = 0; r < rows.length; r++) {
      const v = rows[r];
      if (!Array.isArray(v) || v.length !== ts.length) throw new TypeError(`Expected ${ts.length} values in row ${r}`);
      let off = r * stride;
      for (let i = 0; i < ts.length; i++) off = encodeOne(data, off, ts[i], v[i]);
    }
    return { data, stride };
  }
  const parts = rows.map((v) => encode(types, v));
  const offsets = new Float64Array(rows.length + 1);
  for (let i = 0; i < parts.length; i++) offsets[i + 1] = offsets[i] + parts[i].length;
  return { data: Buffer.concat(parts), offsets };
}

module.exports = { encode, encodeRows, parseType };
