#!/usr/bin/env node
// SPDX-License-Identifier: MIT OR Apache-2.0
// Builds build/merkle.node, the N-API addon, with the system's C compiler: no node-gyp (it
// would download Node's headers, which cannot be reached here). The Node-API headers come
// from the node-api-headers npm package; libmerkle from pkg-config:
//   MERKLE_PKG_CONFIG_PATH  directory of a merkle.pc (a CMake build tree writes one that
//                           points at itself; an installed libmerkle has one in
//                           <prefix>/lib/pkgconfig), else PKG_CONFIG_PATH / the system's.
// The addon is linked with an rpath to the library's directory.
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

function pkgConfig(args) {
  const env = { ...process.env };
  if (process.env.MERKLE_PKG_CONFIG_PATH)
    env.PKG_CONFIG_PATH = [process.env.MERKLE_PKG_CONFIG_PATH, process.env.PKG_CONFIG_PATH].filter(Boolean).join(':');
  try {
    return execFileSync('pkg-config', [...args, 'merkle'], { env, encoding: 'utf8' }).trim().split(/\s+/).filter(Boolean);
  } catch (e) {
    console.error('merkle: pkg-config finds no merkle.pc; set MERKLE_PKG_CONFIG_PATH to a libmerkle build tree or install prefix');
    process.exit(1);
  }
}

const root = path.join(__dirname, '..');
const headers = path.dirname(require.resolve('node-api-headers/package.json'));
const cflags = pkgConfig(['--cflags']);
const libs = pkgConfig(['--libs']);
const rpath = libs.filter((f) => f.startsWith('-L')).map((f) => '-Wl,-rpath,' + f.slice(2));
fs.mkdirSync(path.join(root, 'build'), { recursive: true });
const cc = process.env.CC || 'cc';
const out = path.join(root, 'build', 'merkle.node');
const args = ['-std=c11', '-O2', '-fPIC', '-shared', '-Wall', '-Wextra', '-Werror', '-fvisibility=hidden',
  '-DNODE_GYP_MODULE_NAME=merkle', '-I', path.join(headers, 'include'), ...cflags,
  path.join(root, 'src', 'addon.c'), path.join(root, 'src', 'manifest.c'), '-o', out + '.tmp', ...libs, ...rpath];
execFileSync(cc, args, { stdio: 'inherit' });
fs.renameSync(out + '.tmp', out);
console.log('built ' + path.relative(process.cwd(), out));
