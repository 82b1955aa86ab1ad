// SPDX-License-Identifier: MIT OR Apache-2.0
// The TypeScript declarations compile under --strict against a program that uses them.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { spawnSync } = require('node:child_process');
const path = require('node:path');

test('TypeScript declarations type-check (tsc --strict)', () => {
  const tsc = path.join(__dirname, '..', 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '--strict', '--types', 'node', '--skipLibCheck', '--esModuleInterop',
    path.join(__dirname, 'types', 'usage.ts')], { encoding: 'utf8' });
  assert.strictEqual(r.status, 0, r.stdout + r.stderr);
});
