// SPDX-License-Identifier: MIT OR Apache-2.0
// Peer driver for bench_clvm: clvm_wasm (clvm_rs compiled to WebAssembly, npm) on the same
// canonical bytes. Usage: node clvm_wasm_bench.js FILE REPS. Prints "key value" lines (medians
// in ms). clvm_wasm is looked up as $CLVM_WASM (a directory or module name), else 'clvm_wasm'
// on NODE_PATH. clvm_wasm exports no tree-hash function, so two stand-ins are timed:
//   sha256tree: run_chia_program with the standard sha256tree CLVM program (clvm_rs itself,
//               in wasm, parses the tree and hashes every node with its sha256 operator)
//   jswalk:     LazyNode.from_bytes + an iterative JS walk over .pair/.atom with node:crypto
'use strict';
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const mod = process.env.CLVM_WASM || 'clvm_wasm';
const w = require(mod);
let version = 'clvm_wasm';
try {
  const pj = require(path.join(path.dirname(require.resolve(mod)), 'package.json'));
  version = pj.name + '@' + pj.version;
} catch (e) { /* unknown */ }

const file = process.argv[2];
const reps = parseInt(process.argv[3] || '9', 10);
const bytes = new Uint8Array(fs.readFileSync(file));

// sha256tree program, assembled by hand: main = (a (q . SHA) (c (q . SHA) (c 1 ()))),
// SHA = (a (i (l 5) (q . (sha256 (q . 2) (a 2 (c 2 (c (f 5) ()))) (a 2 (c 2 (c (r 5) ())))))
//              (q . (sha256 (q . 1) 5))) 1)
function atomBytes(v) { return v === 0 ? [0x80] : [v]; }
function ser(x) {
  if (Array.isArray(x)) {
    if (x.length === 0) return [0x80];
    return [0xff, ...ser(x[0]), ...ser(x.slice(1))];
  }
  if (typeof x === 'object') return [0xff, ...ser(x.cons[0]), ...ser(x.cons[1])];
  return atomBytes(x);
}
const C = (a, b) => ({ cons: [a, b] });
const Q = (x) => C(1, x);
const PAIR = [11, Q(2), [2, 2, [4, 2, [4, [5, 5], []]]], [2, 2, [4, 2, [4, [6, 5], []]]]];
const ATOM = [11, Q(1), 5];
const SHA = [2, [3, [7, 5], Q(PAIR), Q(ATOM)], 1];
const PROG = Uint8Array.from(ser([2, Q(SHA), [4, Q(SHA), [4, 1, []]]]));

function jsTreeHash(root) {
  // iterative post-order: ops 0 = visit, 1 = combine
  const stack = [[0, root]], vals = [];
  while (stack.length) {
    const [op, n] = stack.pop();
    if (op === 1) {
      const r = vals.pop(), l = vals.pop();
      vals.push(crypto.createHash('sha256').update(Buffer.from([2])).update(l).update(r).digest());
      continue;
    }
    const p = n.pair;
    if (p) {
      stack.push([1, null], [0, p[1]], [0, p[0]]);
    } else {
      vals.push(crypto.createHash('sha256').update(Buffer.from([1])).update(n.atom).digest());
    }
    n.free();
  }
  return vals[0];
}

// Process CPU time (user + system) in ms: the machine is shared, descheduled time is not ours.
function now() { const u = process.cpuUsage(); return (u.user + u.system) / 1e3; }
function median(a) { a.sort((x, y) => x - y); const n = a.length; return n % 2 ? a[(n - 1) / 2] : (a[n / 2 - 1] + a[n / 2]) / 2; }

const slowReps = Math.min(reps, 3);
const tParse = [], tBr = [], tSha = [], tJs = [];
let brLen = 0, hashHex = '', jsHex = '';
for (let i = 0; i < reps; i++) {
  let t0 = now();
  let node = w.LazyNode.from_bytes(bytes);
  tParse.push(now() - t0);
  if (i < slowReps) { // clvm_wasm's encoder takes seconds on this tree: fewer repetitions
    t0 = now();
    const br = node.to_bytes_with_backref();
    tBr.push(now() - t0);
    brLen = br.length;
  }
  node.free();
  t0 = now();
  const r = w.run_chia_program(PROG, bytes, 1n << 60n, 0);
  tSha.push(now() - t0);
  hashHex = Buffer.from(r[1].atom).toString('hex');
  r[1].free();
  if (i < slowReps) {
    t0 = now();
    node = w.LazyNode.from_bytes(bytes);
    jsHex = jsTreeHash(node).toString('hex');
    tJs.push(now() - t0);
  }
}
if (jsHex !== hashHex) { console.error('sha256tree and JS walk disagree'); process.exit(1); }
console.log('version', version);
console.log('parse_ms', median(tParse).toFixed(3));
console.log('backref_ms', median(tBr).toFixed(3));
console.log('backref_len', brLen);
console.log('sha256tree_ms', median(tSha).toFixed(3));
console.log('jswalk_ms', median(tJs).toFixed(3));
console.log('tree_hash', hashHex);
console.log('ok 1');
