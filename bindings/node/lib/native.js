// SPDX-License-Identifier: MIT OR Apache-2.0
// Loads the N-API addon (build/merkle.node, made by scripts/build.js at install).
'use strict';
const path = require('path');
let native;
try {
  native = require(path.join(__dirname, '..', 'build', 'merkle.node'));
} catch (e) {
  throw new Error(`libmerkle: the native addon is not built (${e.message}); run "npm run build" with MERKLE_PKG_CONFIG_PATH set`);
}
module.exports = native;
