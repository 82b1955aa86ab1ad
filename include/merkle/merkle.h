/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle.h: umbrella header of libmerkle.
**
** Layers: digests (hash.h), binary trees (tree.h), other tree shapes (shape.h), proofs
** (proof.h), structured data
** (trie.h, sexp.h), manifests (manifest.h). See docs/ and the header of each module.
*/
#ifndef MERKLE_H
#define MERKLE_H

#include "merkle/bitcoin.h"
#include "merkle/common.h"
#include "merkle/hash.h"
#include "merkle/manifest.h"
#include "merkle/mdb.h"
#include "merkle/proof.h"
#include "merkle/sexp.h"
#include "merkle/shape.h"
#include "merkle/tree.h"
#include "merkle/trie.h"
#include "merkle/verity.h"

#endif
