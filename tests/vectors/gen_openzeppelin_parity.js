#!/usr/bin/env node
// SPDX-License-Identifier: MIT OR Apache-2.0
//
// Writes tests/vectors/openzeppelin-parity.json: what @openzeppelin/merkle-tree 1.0.8 answers
// for the calls users make by value (issue 26 item 5), on random trees.
//
//   mkdir -p /tmp/oz && cd /tmp/oz && npm install @openzeppelin/merkle-tree@1.0.8
//   NODE_PATH=/tmp/oz/node_modules node tests/vectors/gen_openzeppelin_parity.js > tests/vectors/openzeppelin-parity.json
//
// Trees: StandardMerkleTree.of(values, types) for several type lists and SimpleMerkleTree.of
// (leaves) of 1 to 40 random values (a fixed-seed PRNG), some with a repeated value. For
// each tree: root, render(), dump(); for chosen values: leafLookup(value), the treeIndex it
// maps to, getProof(value), StandardMerkleTree.verify(root, types, value, proof) (true) and
// verify of another value with that proof (false); getMultiProof(values); a value that is not
// in the tree (getProof throws); load() of tampered dumps (validate() throws, message kept).
// Each value is also written as the row text `merkle --values` reads ("row"). The last trees
// have arrays and tuples in their leaf types (values as "[v1,v2]" / "(v1,v2)" in the rows).
'use strict';
const fs = require('fs');
const path = require('path');
const { SimpleMerkleTree, StandardMerkleTree } = require('@openzeppelin/merkle-tree');

const pkg = JSON.parse(fs.readFileSync(path.join(path.dirname(require.resolve('@openzeppelin/merkle-tree')), '..', 'package.json')));

let seed = 0x26055;
function rnd() { // mulberry32
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (n) => Math.floor(rnd() * n);
const hexBytes = (n) => '0x' + Array.from({ length: n }, () => int(256).toString(16).padStart(2, '0')).join('');
function bigDec(bits) {
    let v = 0n;
    for (let i = 0; i < bits; i += 8) v = (v << 8n) | BigInt(int(256));
    return v;
}
const WORDS = ['alpha', 'beta', 'a,b', 'quote "x"', 'back\\slash', 'élan', '', 'zeta'];

// One value of a type: [js value for OZ, text for our row].
function gen(type) {
    if (type === 'address') { const a = hexBytes(20); return [a, a]; }
    if (type === 'bool') { const b = rnd() < 0.5; return [b, b ? 'true' : 'false']; }
    if (type === 'string') {
        const s = WORDS[int(WORDS.length)] + (rnd() < 0.5 ? String(int(1000)) : '');
        return [s, '"' + s.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"'];
    }
    if (type === 'bytes') { const b = hexBytes(int(40)); return [b, b]; }
    let m = /^bytes(\d+)$/.exec(type);
    if (m) { const b = hexBytes(+m[1]); return [b, b]; }
    m = /^uint(\d+)$/.exec(type);
    if (m) { const v = bigDec(+m[1]) >> BigInt(int(+m[1])); return [v.toString(), v.toString()]; }
    m = /^int(\d+)$/.exec(type);
    if (m) {
        let v = bigDec(+m[1] - 1) >> BigInt(int(+m[1] - 1));
        if (rnd() < 0.5) v = -v - 1n;
        return [v.toString(), v.toString()];
    }
    throw new Error('type ' + type);
}

// Arrays (T[], T[k]) and tuples ((A,B)), nested: [js value, text as "[v1,v2]" / "(v1,v2)"].
function splitTop(s) {
    const out = [];
    let depth = 0, a = 0;
    for (let i = 0; i < s.length; i++) {
        if (s[i] === '(') depth++;
        else if (s[i] === ')') depth--;
        else if (s[i] === ',' && depth === 0) { out.push(s.slice(a, i)); a = i + 1; }
    }
    out.push(s.slice(a));
    return out;
}
function genT(type) {
    if (type.endsWith(']')) {
        const at = type.lastIndexOf('[');
        const inner = type.slice(0, at), k = type.slice(at + 1, -1);
        const items = Array.from({ length: k ? +k : int(4) }, () => genT(inner));
        return [items.map(x => x[0]), '[' + items.map(x => x[1]).join(',') + ']'];
    }
    if (type.startsWith('(')) {
        const items = splitTop(type.slice(1, -1)).map(genT);
        return [items.map(x => x[0]), '(' + items.map(x => x[1]).join(',') + ')'];
    }
    return gen(type);
}

function rowsOf(types, n, dup) {
    const vals = [], rows = [];
    for (let i = 0; i < n; i++) {
        const parts = types.map(genT);
        vals.push(parts.map(p => p[0]));
        rows.push(parts.map(p => p[1]).join(','));
    }
    if (dup && n > 2) { // a repeated value: leafLookup keeps the last one
        const a = int(n), b = (a + 1 + int(n - 1)) % n;
        vals[b] = vals[a];
        rows[b] = rows[a];
    }
    return [vals, rows];
}

function throws(f) {
    try { f(); } catch (e) { return e.message; }
    return null;
}

function picks(n) {
    const s = new Set([0, n - 1]);
    while (s.size < Math.min(n, 4)) s.add(int(n));
    return [...s];
}

function standardCase(types, n, dup) {
    const [vals, rows] = rowsOf(types, n, dup);
    const tree = StandardMerkleTree.of(vals, types);
    const c = {
        kind: 'standard', types: types.join(','), rows, values: vals, root: tree.root, render: tree.render(),
        dump: JSON.stringify(tree.dump(), null, 2), lookups: [],
    };
    for (const i of picks(n)) {
        const v = vals[i];
        const at = tree.leafLookup(v);
        const proof = tree.getProof(v);
        const other = rowsOf(types, 1, false);
        c.lookups.push({
            value: i, row: rows[i], other_value: other[0][0], lookup: at, tree_index: tree.dump().values[at].treeIndex,
            leaf_hash: tree.leafHash(v), proof,
            verify: StandardMerkleTree.verify(tree.root, types, v, proof),
            other_row: other[1][0], verify_other: StandardMerkleTree.verify(tree.root, types, other[0][0], proof),
        });
    }
    const set = picks(n).filter((i, k, a) => a.findIndex(j => tree.leafLookup(vals[j]) === tree.leafLookup(vals[i])) === k);
    const mp = tree.getMultiProof(set.map(i => vals[i]));
    c.multi = { rows: set.map(i => rows[i]), values: set.map(i => vals[i]), proof: mp.proof, proofFlags: mp.proofFlags,
                leaves: mp.leaves.map(v => tree.leafHash(v)),
                // getMultiProof()'s own output, its leaves the values in the proof's order, as
                // StandardMerkleTree.verifyMultiProof(root, types, multiproof) takes it.
                oz: { leaves: mp.leaves, proof: mp.proof, proofFlags: mp.proofFlags },
                verify: StandardMerkleTree.verifyMultiProof(tree.root, types, mp) };
    let missing;
    do { missing = rowsOf(types, 1, false); } while (vals.some(v => JSON.stringify(v) === JSON.stringify(missing[0][0])));
    c.missing = { row: missing[1][0], value: missing[0][0], error: throws(() => tree.getProof(missing[0][0])) };
    // validate(): a dump whose value or node was changed does not load.
    // (dump() shares the tree's arrays: change copies.)
    const d1 = JSON.parse(JSON.stringify(tree.dump()));
    d1.values[0].value = missing[0][0];
    const d2 = JSON.parse(JSON.stringify(tree.dump()));
    d2.tree[0] = '0x' + '00'.repeat(32);
    c.tampered = [
        { what: 'value 0 changed', dump: JSON.stringify(d1, null, 2), error: throws(() => StandardMerkleTree.load(d1)) },
        { what: 'root changed', dump: JSON.stringify(d2, null, 2), error: throws(() => StandardMerkleTree.load(d2)) },
    ];
    return c;
}

function simpleCase(n, dup) {
    const leaves = Array.from({ length: n }, () => hexBytes(32));
    if (dup && n > 2) leaves[n - 1] = leaves[int(n - 1)];
    const tree = SimpleMerkleTree.of(leaves);
    const c = { kind: 'simple', leaves, root: tree.root, render: tree.render(),
                dump: JSON.stringify(tree.dump(), null, 2), lookups: [] };
    for (const i of picks(n)) {
        const at = tree.leafLookup(leaves[i]);
        const proof = tree.getProof(leaves[i]);
        c.lookups.push({ value: i, row: leaves[i], lookup: at, tree_index: tree.dump().values[at].treeIndex,
                         proof, verify: SimpleMerkleTree.verify(tree.root, leaves[i], proof) });
    }
    const missing = hexBytes(32);
    c.missing = { row: missing, error: throws(() => tree.getProof(missing)) };
    return c;
}

const TYPES = [['address', 'uint256'], ['string', 'bool'], ['bytes32'], ['uint8', 'int64', 'bytes', 'bytes4'],
               ['bool', 'address', 'string', 'int256']];
const cases = [];
for (const n of [1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 40]) {
    const types = TYPES[cases.length % TYPES.length];
    cases.push(standardCase(types, n, n % 2 === 1));
    cases.push(simpleCase(n, n % 3 === 0));
}
// Arrays and tuples in leaf types (issue 26 item 5), after the flat cases (same seed stream).
const NESTED = [['uint256[]', '(address,uint256)', 'string'], ['string[][]', 'bool'], ['uint8[3]', 'bytes[]'],
                ['(uint256,(string,bool[]))[]', 'address'], ['bytes32[2][]', '(uint16,bytes4)[1]']];
for (const n of [1, 2, 3, 6, 9, 17]) {
    const types = NESTED[cases.length % NESTED.length];
    cases.push(standardCase(types, n, n % 3 === 0));
}
process.stdout.write(JSON.stringify({
    schema: 'openzeppelin-parity/1',
    source: '@openzeppelin/merkle-tree ' + pkg.version + ' (gen_openzeppelin_parity.js, seed 0x26055)',
    cases,
}, null, 1) + '\n');
