/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle verify PROOF [--root HEX] [--old-root HEX] [--leaf FILE | --leaf-hex HEX | --leaf-hash
** HEX]
**
** Checks a proof written by merkle proof / merkle consistency (cli/cmd_proof.c), in JSON or
** the binary "MRKP" encoding: inclusion, range, consistency and multiproofs.
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "rootio.h"

#define MAX_PROOF_FILE (64u << 20)

typedef unsigned long long ull;

static const cli_opt verify_opts[] = {
    { OPT_ROOT, "root", "HEX", NULL,
      "the trusted root (the new root of a consistency proof); required unless "
      "--untrusted-root",
      NULL },
    { OPT_OLD_ROOT, "old-root", "HEX", NULL,
      "the trusted old root of a consistency proof; required unless --untrusted-root", NULL },
    { OPT_UNTRUSTED_ROOT, "untrusted-root", NULL, NULL,
      "check against the roots stored in the proof: this only shows that the proof is "
      "coherent, not that it belongs to a tree you trust",
      "The OK line then says \"untrusted root\"." },
    { OPT_INDEX, "index", "I", NULL,
      "pin the claim: the proof must be for leaf I (inclusion) or start at I (range)", NULL },
    { OPT_TREE_SIZE, "tree-size", "N", NULL,
      "pin the claim: the proof must be for a tree of N leaves (the new size of a consistency "
      "proof)",
      NULL },
    { OPT_OLD_SIZE, "old-size", "M", NULL, "pin the old size of a consistency proof", NULL },
    { OPT_LEAF, "leaf", "FILE", CLI_VALUES_FILE,
      "the leaf's raw bytes (for a range proof: the bytes of the leaves of the range, or for "
      "a --leaves proof one hex leaf per line)",
      NULL },
    { OPT_LEAF_HEX, "leaf-hex", "HEX", NULL, "the leaf's raw bytes in hex", NULL },
    { OPT_LEAF_HASH, "leaf-hash", "HEX", NULL, "the leaf hash H(0x00 || leaf)", NULL },
    { OPT_ROW_VALUE, "value", "ROW", NULL,
      "openzeppelin: the leaf is the value ROW of the ABI types --values TYPES, as "
      "StandardMerkleTree.verify(root, types, value, proof) takes it (without --values: a "
      "SimpleMerkleTree leaf, 32 bytes in hex)",
      "ROW is written as *merkle root --values* reads a line. A row that does not fit its "
      "types is a usage error (exit 2)." },
    { OPT_VALUES, "values", "TYPES", NULL,
      "openzeppelin: the ABI types of --value ROW, and of the values a getMultiProof() "
      "object holds as its leaves (StandardMerkleTree.verifyMultiProof)",
      NULL },
    CLI_OPT_HELP_ROW,
    CLI_OPT_END_ROW,
};

const cli_cmd verify_spec = {
    "verify",
    NULL,
    "Usage: merkle verify PROOF [--root HEX] [--leaf FILE | --leaf-hex HEX | --leaf-hash HEX]\n"
    "       merkle verify PROOF --root HEX --values TYPES --value ROW   (openzeppelin)\n"
    "Verify a proof written by merkle proof / merkle consistency (JSON or --binary).\n"
    "PROOF - reads standard input.\n",
    { verify_opts },
    "Without a leaf option the leaf stored in the proof (\"leaf\", else \"leaf_hash\")\n"
    "is used.\n"
    "A trusted --root (and --old-root for a consistency proof) is required, or\n"
    "--untrusted-root to check only that the proof is coherent.\n"
    "Prints 'OK: <what was verified>' (exit 0) or 'FAILED: <reason>' (exit 1); exit 2\n"
    "for a malformed proof file or a usage error (a missing trusted root included).\n",
    0,
};

/* Read a whole file ("-" = stdin) of at most max bytes. NULL after a message. */
static uint8_t *slurp(const char *name, size_t max, size_t *len)
{
    char *buf;
    int e = cli_read_file(name, max, &buf, len);
    if (e) {
        cli_read_error(NULL, name, e, max);
        return NULL;
    }
    return (uint8_t *)buf;
}

static int verify_failed(const char *fmt, const char *detail)
{
    printf("FAILED: ");
    printf(fmt, detail);
    printf("\n");
    fflush(stdout);
    return CLI_FAIL;
}

/* Decode a hex option into a 32-byte hash: 0 ok, 1 wrong length (FAILED), -1 bad hex. */
static int hex_hash(const char *hex, uint8_t out[MERKLE_HASH_LEN], size_t *got)
{
    size_t hl = strlen(hex);
    uint8_t *tmp = malloc(hl / 2 + 1);
    if (!tmp) return -1;
    size_t n = 0;
    merkle_status s = merkle_hex_decode(tmp, hl / 2 + 1, &n, hex, hl, NULL);
    *got = n;
    if (s == MERKLE_OK && n == MERKLE_HASH_LEN) memcpy(out, tmp, MERKLE_HASH_LEN);
    free(tmp);
    if (s != MERKLE_OK) return -1;
    return n == MERKLE_HASH_LEN ? 0 : 1;
}

typedef struct hash_list {
    merkle_hash_alg alg;
    uint8_t (*h)[MERKLE_HASH_LEN];
    size_t n, cap;
    uint64_t limit;
    uint64_t extra; /* leaves beyond limit: counted, not kept */
} hash_list;

static int hl_add(hash_list *l, const uint8_t *leaf, size_t len)
{
    if (l->n >= l->limit) {
        l->extra++;
        return 0;
    }
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 64;
        uint8_t(*nh)[MERKLE_HASH_LEN] = realloc(l->h, nc * MERKLE_HASH_LEN);
        if (!nh) {
            cli_error("out of memory");
            return -1;
        }
        l->h = nh;
        l->cap = nc;
    }
    merkle_status s = merkle_tree_leaf_hash(l->h[l->n++], l->alg, leaf, len);
    if (s != MERKLE_OK) {
        cli_error("%s", merkle_strerror(s));
        return -1;
    }
    return 0;
}

static int hl_add_cb(void *ctx, const uint8_t *leaf, size_t len)
{
    return hl_add((hash_list *)ctx, leaf, len);
}

static void reverse32(uint8_t *b)
{
    for (int i = 0; i < MERKLE_HASH_LEN / 2; i++) {
        uint8_t t = b[i];
        b[i] = b[MERKLE_HASH_LEN - 1 - i];
        b[MERKLE_HASH_LEN - 1 - i] = t;
    }
}

/* A multiproof document (ours, or getMultiProof()'s object; types: a StandardMerkleTree's
** values in "leaves"); leaf: the leaf hash of --value or --leaf-hash, which must be among
** the proven leaves (NULL: any). */
static int verify_multiproof(const char *pname, const char *text, size_t len, const uint8_t *root,
                             int leaf_opts, int untrusted, const char *types, const uint8_t *leaf)
{
    if (leaf_opts)
        return cli_cmd_usage(&verify_spec,
                             "a multiproof carries its leaves: give --root, and --value or "
                             "--leaf-hash to check that one of them is proven");
    if (!root && !untrusted)
        return cli_cmd_usage(&verify_spec,
                             "no trusted root: give --root HEX (the proof's own root proves "
                             "nothing), or --untrusted-root to check only its coherence");
    merkle_multiproof *m = NULL;
    merkle_error err;
    memset(&err, 0, sizeof err);
    merkle_status s = types ? merkle_multiproof_alloc_json_values(&m, types, text, len, &err)
                            : merkle_multiproof_alloc_json(&m, text, len, &err);
    if (s == MERKLE_ERR_VERIFY) return verify_failed("%s", err.message);
    if (s != MERKLE_OK) {
        cli_error("%s: malformed proof: %s", pname,
                  err.message[0] ? err.message : merkle_strerror(s));
        return CLI_USAGE;
    }
    /* Only --untrusted-root gets here without --root: the document's own root, named. */
    uint8_t own[MERKLE_HASH_LEN];
    if (!root && merkle_multiproof_root(own, m) != MERKLE_OK) {
        merkle_multiproof_free(m);
        return cli_cmd_usage(&verify_spec, "the proof has no root: give --root HEX");
    }
    s = merkle_multiproof_verify(m, root ? root : own, &err);
    const char *pn = merkle_profile_name(merkle_multiproof_profile(m));
    size_t nl = merkle_multiproof_leaf_count(m);
    int has = !leaf || merkle_multiproof_has_leaf(m, leaf);
    merkle_multiproof_free(m);
    if (s == MERKLE_OK && !has)
        return verify_failed("%s", "the leaf is not among the proof's leaves");
    if (s != MERKLE_OK)
        return verify_failed("%s", err.message[0] ? err.message : merkle_strerror(s));
    char lhx[2 * MERKLE_HASH_LEN + 1];
    if (leaf) merkle_hex_encode(lhx, leaf, MERKLE_HASH_LEN);
    printf("OK: %s multiproof: its %zu leaves%s%s are in the tree with %s\n", pn ? pn : "?", nl,
           leaf ? ", among them " : "", leaf ? lhx : "",
           root ? "the trusted root" : "the proof's own root (untrusted root)");
    return fflush(stdout) == 0 ? CLI_OK : CLI_FAIL;
}

/* verify's options and what they decode to. */
typedef struct verify_args {
    const char *root_hex, *old_root_hex, *leaf_file, *leaf_hex, *leaf_hash_hex, *pname;
    const char *index_s, *size_s, *old_size_s; /* --index, --tree-size, --old-size */
    const char *value, *types;                 /* openzeppelin: --value ROW, --values TYPES */
    uint64_t index, size, old_size;
    int untrusted; /* --untrusted-root */
    uint8_t root[MERKLE_HASH_LEN], old_root[MERKLE_HASH_LEN], leaf_hash[MERKLE_HASH_LEN];
    uint8_t *leaf_data; /* --leaf-hex, or --leaf's bytes once read */
    size_t leaf_data_len;
} verify_args;

/* Options and operand: 0, -1 after --help, else the exit status after a usage message. */
static int verify_parse(int argc, char **argv, verify_args *va)
{
    const cli_cmd *cmd = &verify_spec;
    memset(va, 0, sizeof *va);
    cli_parser p;
    cli_parser_init(&p, cmd, argc, argv);
    const char *arg;
    int c;
    while ((c = cli_opt_next(&p, &arg)) != CLI_OPT_END) {
        switch (c) {
        case CLI_OPT_HELP: return -1;
        case CLI_OPT_ERROR: return cli_cmd_usage_rc(cmd);
        case OPT_ROOT: va->root_hex = arg; break;
        case OPT_OLD_ROOT: va->old_root_hex = arg; break;
        case OPT_LEAF: va->leaf_file = arg; break;
        case OPT_LEAF_HEX: va->leaf_hex = arg; break;
        case OPT_LEAF_HASH: va->leaf_hash_hex = arg; break;
        case OPT_UNTRUSTED_ROOT: va->untrusted = 1; break;
        case OPT_INDEX: va->index_s = arg; break;
        case OPT_TREE_SIZE: va->size_s = arg; break;
        case OPT_OLD_SIZE: va->old_size_s = arg; break;
        case OPT_ROW_VALUE: va->value = arg; break;
        case OPT_VALUES: va->types = arg; break;
        default: break;
        }
    }
    if (va->index_s && cli_parse_u64(va->index_s, &va->index) != 0)
        return cli_cmd_usage(cmd, "--index needs a non-negative integer, got '%s'", va->index_s);
    if (va->size_s && cli_parse_u64(va->size_s, &va->size) != 0)
        return cli_cmd_usage(cmd, "--tree-size needs a non-negative integer, got '%s'", va->size_s);
    if (va->old_size_s && cli_parse_u64(va->old_size_s, &va->old_size) != 0)
        return cli_cmd_usage(cmd, "--old-size needs a non-negative integer, got '%s'",
                             va->old_size_s);
    if (va->untrusted && (va->root_hex || va->old_root_hex))
        return cli_cmd_usage(cmd, "--untrusted-root and --root/--old-root contradict each other");
    if (optind >= argc) return cli_cmd_usage(cmd, "missing PROOF file");
    if (optind + 1 < argc) return cli_cmd_usage(cmd, "only one PROOF file is allowed");
    if (!!va->leaf_file + !!va->leaf_hex + !!va->leaf_hash_hex + !!va->value > 1)
        return cli_cmd_usage(cmd, "give at most one of --leaf, --leaf-hex, --leaf-hash, --value");
    va->pname = argv[optind];
    return 0;
}

/* Decode one 32-byte hex option: 0, or the exit status (FAILED for a wrong length). */
static int verify_hex_opt(const char *opt, const char *hex, uint8_t out[MERKLE_HASH_LEN],
                          const char *what)
{
    size_t got;
    int r = hex_hash(hex, out, &got);
    if (r < 0) return cli_cmd_usage(&verify_spec, "%s is not hex: '%s'", opt, hex);
    if (r > 0) {
        printf("FAILED: %s has %zu bytes, %s has %d\n", opt, got, what, MERKLE_HASH_LEN);
        return CLI_FAIL;
    }
    return 0;
}

/* The hex options: 0, or the exit status after a message. */
static int verify_hex_args(verify_args *va)
{
    int rc;
    va->root_hex = cli_skip_0x(va->root_hex);
    va->old_root_hex = cli_skip_0x(va->old_root_hex);
    va->leaf_hash_hex = cli_skip_0x(va->leaf_hash_hex);
    va->leaf_hex = cli_skip_0x(va->leaf_hex);
    if (va->root_hex && (rc = verify_hex_opt("--root", va->root_hex, va->root, "a root")) != 0)
        return rc;
    if (va->old_root_hex &&
        (rc = verify_hex_opt("--old-root", va->old_root_hex, va->old_root, "a root")) != 0)
        return rc;
    if (va->leaf_hash_hex &&
        (rc = verify_hex_opt("--leaf-hash", va->leaf_hash_hex, va->leaf_hash, "a leaf hash")) != 0)
        return rc;
    if (va->value && va->types) {
        /* StandardMerkleTree's leaf: keccak256(keccak256(abi.encode(types, row))). */
        merkle_error err;
        memset(&err, 0, sizeof err);
        merkle_status s =
            merkle_shape_abi_leaf(va->leaf_hash, va->types, va->value, strlen(va->value), &err);
        if (s != MERKLE_OK)
            return cli_cmd_usage(&verify_spec, "--value '%s': %s", va->value,
                                 err.message[0] ? err.message : merkle_strerror(s));
        va->leaf_hash_hex = va->value; /* from here on the leaf hash is given */
    } else if (va->value) {
        /* SimpleMerkleTree: the leaf is the 32-byte value itself. */
        if ((rc = verify_hex_opt("--value", cli_skip_0x(va->value), va->leaf_hash, "a leaf")) != 0)
            return rc;
        va->leaf_hash_hex = va->value;
    }
    if (va->leaf_hex) {
        size_t hl = strlen(va->leaf_hex);
        va->leaf_data = malloc(hl / 2 + 1);
        if (!va->leaf_data || merkle_hex_decode(va->leaf_data, hl / 2 + 1, &va->leaf_data_len,
                                                va->leaf_hex, hl, NULL) != MERKLE_OK) {
            free(va->leaf_data);
            va->leaf_data = NULL;
            return cli_cmd_usage(&verify_spec, "--leaf-hex is not hex");
        }
    }
    return 0;
}

/* A decoded proof and the leaf stored in it. */
typedef struct loaded_proof {
    merkle_proof p;
    uint8_t *stored_leaf; /* a binary leaf may be nearly the whole file */
    size_t stored_leaf_len;
    int have_stored_leaf;
    int bare; /* an OpenZeppelin proof array: no position, size, root or leaf */
} loaded_proof;

static size_t skip_ws(const uint8_t *t, size_t i, size_t n)
{
    while (i < n && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')) i++;
    return i;
}

/* Decode the proof file (binary "MRKP" or JSON): 0, or the exit status after a message. */
static int verify_decode(loaded_proof *lp, const char *pname, const uint8_t *file, size_t flen)
{
    merkle_error err;
    memset(&err, 0, sizeof err);
    merkle_status s;
    lp->stored_leaf = malloc(flen + 1);
    if (!lp->stored_leaf) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    /* An OpenZeppelin getProof() array (read by merkle_proof_from_json) states no position. */
    size_t first = skip_ws(file, 0, flen);
    lp->bare = first < flen && file[first] == '[';
    if (flen >= 4 && memcmp(file, "MRKP", 4) == 0) {
        const uint8_t *leaf;
        s = merkle_proof_decode(&lp->p, &leaf, &lp->stored_leaf_len, file, flen, &err);
        if (s == MERKLE_OK && leaf) {
            memcpy(lp->stored_leaf, leaf, lp->stored_leaf_len);
            lp->have_stored_leaf = 1;
        }
    } else {
        s = merkle_proof_from_json(&lp->p, lp->stored_leaf, flen / 2 + 1, &lp->stored_leaf_len,
                                   (const char *)file, flen, &err);
        lp->have_stored_leaf = s == MERKLE_OK && (lp->p.flags & MERKLE_PROOF_HAS_LEAF);
    }
    if (s == MERKLE_ERR_VERIFY) return verify_failed("%s", err.message);
    if (s != MERKLE_OK) {
        cli_error("%s: malformed proof: %s", pname,
                  err.message[0] ? err.message : merkle_strerror(s));
        return CLI_USAGE;
    }
    return 0;
}

/* The leaf hash of an inclusion proof from the options or the proof (*lh stays NULL when
** there is none): 0, or the exit status after a message. */
static int verify_inclusion_leaf(verify_args *va, const loaded_proof *lp,
                                 uint8_t computed[MERKLE_HASH_LEN], const uint8_t **lh)
{
    const merkle_proof *p = &lp->p;
    const uint8_t *data = NULL;
    size_t dlen = 0;
    if (va->leaf_hash_hex) {
        *lh = va->leaf_hash;
    } else {
        if (va->leaf_file) {
            va->leaf_data = slurp(va->leaf_file, SIZE_MAX / 2, &va->leaf_data_len);
            if (!va->leaf_data) return CLI_USAGE;
        }
        if (va->leaf_data) {
            data = va->leaf_data;
            dlen = va->leaf_data_len;
        } else if (lp->have_stored_leaf) {
            data = lp->stored_leaf;
            dlen = lp->stored_leaf_len;
        }
        if (data) {
            if (merkle_proof_leaf_hash(computed, p, data, dlen) != MERKLE_OK)
                return verify_failed("%s", "a leaf of this profile is a 32-byte hash");
            *lh = computed;
        }
    }
    /* CometBFT's rule: a leaf must match the proof's own leaf hash when it has one. */
    if (*lh && (p->flags & MERKLE_PROOF_HAS_LEAF_HASH) &&
        !merkle_ct_equal(*lh, p->leaf_hash, MERKLE_HASH_LEN))
        return verify_failed("%s", "the leaf does not match the proof's leaf_hash");
    return 0;
}

/* The leaf hashes of a range proof from --leaf FILE, --leaf-hex or --leaf-hash into hl:
** 0, or the exit status after a message. */
static int verify_range_leaves(verify_args *va, const merkle_proof *p, hash_list *hl)
{
    uint64_t count = p->end > p->index ? p->end - p->index : 0;
    hl->alg = p->hash;
    hl->limit = count;
    if (va->leaf_hash_hex) {
        if (hl_add(hl, NULL, 0) != 0) return CLI_USAGE; /* sized slot, replaced below */
        /* No slot for an empty range (end <= start): the count check fails it. */
        if (hl->n) memcpy(hl->h[0], va->leaf_hash, MERKLE_HASH_LEN);
    } else if (va->leaf_file && p->leaf_size == 0) {
        int fd = cli_open_input(va->leaf_file);
        if (fd < 0) {
            cli_error("%s: %s", va->leaf_file, strerror(errno));
            return CLI_USAGE;
        }
        int rr = root_read_leaves(va->leaf_file, fd, hl_add_cb, hl);
        if (fd != STDIN_FILENO) close(fd);
        if (rr != 0) return CLI_USAGE;
    } else if (va->leaf_file || va->leaf_hex) {
        if (va->leaf_file) {
            va->leaf_data = slurp(va->leaf_file, SIZE_MAX / 2, &va->leaf_data_len);
            if (!va->leaf_data) return CLI_USAGE;
        }
        if (p->leaf_size == 0) {
            if (hl_add(hl, va->leaf_data, va->leaf_data_len) != 0) return CLI_USAGE;
        } else {
            uint64_t ls = p->leaf_size;
            for (size_t off = 0; off < va->leaf_data_len; off += (size_t)ls) {
                size_t take = va->leaf_data_len - off < ls ? va->leaf_data_len - off : (size_t)ls;
                if (hl_add(hl, va->leaf_data + off, take) != 0) return CLI_USAGE;
            }
        }
    } else {
        return cli_cmd_usage(&verify_spec, "a range proof needs the range's leaves: --leaf FILE");
    }
    if (hl->n != count || hl->extra) {
        printf("FAILED: the range [%llu, %llu) has %llu leaves, --leaf gave %llu\n", (ull)p->index,
               (ull)p->end, (ull)count, (ull)(hl->n + hl->extra));
        return CLI_FAIL;
    }
    return 0;
}

/* The trusted roots against the proof's, and what the proof lacks: 0 or the exit status. */
static int verify_preconditions(const verify_args *va, const merkle_proof *p, const uint8_t *lh,
                                int bare)
{
    int cons = p->kind == MERKLE_PROOF_CONSISTENCY;
    if (!va->untrusted && (!va->root_hex || (cons && !va->old_root_hex)))
        return cli_cmd_usage(&verify_spec,
                             "no trusted %s: give %s (the proof's own roots prove nothing), or "
                             "--untrusted-root to check only its coherence",
                             cons ? "roots" : "root",
                             cons ? "--root and --old-root" : "--root HEX");
    /* What the proof is for, pinned by the caller. */
    if (bare && (va->index_s || va->size_s))
        return cli_cmd_usage(&verify_spec, "a bare proof array states no %s: drop %s",
                             va->index_s ? "index" : "tree size",
                             va->index_s ? "--index" : "--tree-size");
    if (va->index_s && cons)
        return cli_cmd_usage(&verify_spec, "a consistency proof has no index: use --old-size");
    if (va->old_size_s && !cons)
        return cli_cmd_usage(&verify_spec, "--old-size belongs to a consistency proof");
    if (va->index_s && p->index != va->index) {
        printf("FAILED: the proof is for %s %llu, not %llu\n",
               p->kind == MERKLE_PROOF_RANGE ? "a range starting at" : "leaf", (ull)p->index,
               (ull)va->index);
        return CLI_FAIL;
    }
    if (va->size_s && p->tree_size != va->size) {
        printf("FAILED: the proof is for a tree of %llu leaves, not %llu\n", (ull)p->tree_size,
               (ull)va->size);
        return CLI_FAIL;
    }
    if (va->old_size_s && p->index != va->old_size) {
        printf("FAILED: the proof is from a tree of %llu leaves, not %llu\n", (ull)p->index,
               (ull)va->old_size);
        return CLI_FAIL;
    }
    /* A proof that names another root than the trusted one is not a proof for it. */
    if (va->root_hex && (p->flags & MERKLE_PROOF_HAS_ROOT) &&
        !merkle_ct_equal(va->root, p->root, MERKLE_HASH_LEN))
        return verify_failed("%s", "the proof's root differs from --root");
    if (va->old_root_hex && (p->flags & MERKLE_PROOF_HAS_OLD_ROOT) &&
        !merkle_ct_equal(va->old_root, p->old_root, MERKLE_HASH_LEN))
        return verify_failed("%s", "the proof's old root differs from --old-root");
    if (!va->root_hex && !(p->flags & MERKLE_PROOF_HAS_ROOT))
        return cli_cmd_usage(&verify_spec, "the proof has no root: give --root HEX");
    if (p->kind == MERKLE_PROOF_INCLUSION && !lh && !(p->flags & MERKLE_PROOF_HAS_LEAF_HASH))
        return cli_cmd_usage(&verify_spec,
                             "the proof has no leaf: give --leaf, --leaf-hex or --leaf-hash");
    if (p->kind == MERKLE_PROOF_CONSISTENCY && !va->old_root_hex &&
        !(p->flags & MERKLE_PROOF_HAS_OLD_ROOT))
        return cli_cmd_usage(&verify_spec, "the proof has no old root: give --old-root HEX");
    return 0;
}

/* "OK: <what was verified>" on stdout. */
static void print_verified(const verify_args *va, const merkle_proof *p, const uint8_t *lh,
                           int bare)
{
    char hex[2 * MERKLE_HASH_LEN + 1];
    uint8_t r[MERKLE_HASH_LEN];
    memcpy(r, va->root_hex ? va->root : p->root, MERKLE_HASH_LEN);
    if (p->profile == MERKLE_PROFILE_BITCOIN) reverse32(r); /* display order */
    merkle_hex_encode(hex, r, MERKLE_HASH_LEN);
    const char *trust = va->untrusted ? " (untrusted root: the proof's own)" : "";
    const char *pn = merkle_profile_name(p->profile), *hn = merkle_hash_alg_name(p->hash);
    if (p->kind == MERKLE_PROOF_CONSISTENCY) {
        char old[2 * MERKLE_HASH_LEN + 1];
        merkle_hex_encode(old, va->old_root_hex ? va->old_root : p->old_root, MERKLE_HASH_LEN);
        printf("OK: the tree of %llu leaves with root %s extends the tree of %llu leaves with "
               "root %s (%s, %s)%s\n",
               (ull)p->tree_size, hex, (ull)p->index, old, pn, hn, trust);
    } else if (p->kind == MERKLE_PROOF_RANGE) {
        printf("OK: leaves [%llu, %llu) of a tree of %llu leaves with root %s (%s, %s)%s\n",
               (ull)p->index, (ull)p->end, (ull)p->tree_size, hex, pn, hn, trust);
    } else {
        char lhx[2 * MERKLE_HASH_LEN + 1];
        uint8_t l[MERKLE_HASH_LEN];
        memcpy(l, lh ? lh : p->leaf_hash, MERKLE_HASH_LEN);
        if (p->profile == MERKLE_PROFILE_BITCOIN) reverse32(l);
        merkle_hex_encode(lhx, l, MERKLE_HASH_LEN);
        if (bare)
            printf("OK: the leaf (hash %s) is in the tree with root %s (%s, %s; a bare proof "
                   "array: no position)\n",
                   lhx, hex, pn, hn);
        else
            printf("OK: leaf %llu (hash %s) of a tree of %llu leaves with root %s (%s, %s)%s\n",
                   (ull)p->index, lhx, (ull)p->tree_size, hex, pn, hn, trust);
    }
}

/* Check a decoded proof with the leaves and roots of the options: the exit status. */
static int verify_proof(verify_args *va, loaded_proof *lp)
{
    merkle_proof *p = &lp->p;
    if (va->types && !va->value)
        return cli_cmd_usage(&verify_spec, "--values TYPES types a --value ROW");
    if (va->value && p->profile != MERKLE_PROFILE_OPENZEPPELIN)
        return cli_cmd_usage(&verify_spec, "--value verifies openzeppelin proofs; this one is %s",
                             merkle_profile_name(p->profile));
    if (p->profile == MERKLE_PROFILE_BITCOIN) {
        /* --root and --leaf-hash are in display order, as the proof's JSON. */
        reverse32(va->root);
        reverse32(va->leaf_hash);
    }
    const uint8_t *lh = NULL;
    const uint8_t(*lhs)[MERKLE_HASH_LEN] = NULL;
    uint8_t computed[MERKLE_HASH_LEN];
    hash_list hl;
    memset(&hl, 0, sizeof hl);
    int status = 0;
    if (p->kind == MERKLE_PROOF_CONSISTENCY) {
        if (va->leaf_file || va->leaf_hex || va->leaf_hash_hex)
            status = cli_cmd_usage(&verify_spec, "a consistency proof has no leaf: drop --leaf*");
    } else if (p->kind == MERKLE_PROOF_INCLUSION) {
        status = verify_inclusion_leaf(va, lp, computed, &lh);
    } else {
        status = verify_range_leaves(va, p, &hl);
        lhs = (const uint8_t(*)[MERKLE_HASH_LEN])hl.h;
    }
    if (status == 0) status = verify_preconditions(va, p, lh, lp->bare);
    if (status == 0) {
        merkle_error err;
        memset(&err, 0, sizeof err);
        /* Only --untrusted-root gets here without --root: the proof's own roots, named. */
        const uint8_t *root = va->root_hex                         ? va->root
                              : (p->flags & MERKLE_PROOF_HAS_ROOT) ? p->root
                                                                   : NULL;
        const uint8_t *old_root = va->old_root_hex                         ? va->old_root
                                  : (p->flags & MERKLE_PROOF_HAS_OLD_ROOT) ? p->old_root
                                                                           : NULL;
        merkle_status s = merkle_proof_verify(p, root, old_root, lh, lhs, &err);
        if (s == MERKLE_OK) {
            print_verified(va, p, lh, lp->bare);
            status = fflush(stdout) == 0 ? CLI_OK : CLI_FAIL;
        } else {
            status = verify_failed("%s", err.message[0] ? err.message : merkle_strerror(s));
        }
    }
    free(hl.h);
    return status;
}

int cmd_verify(int argc, char **argv)
{
    verify_args va;
    int rc = verify_parse(argc, argv, &va);
    if (rc) return rc < 0 ? CLI_OK : rc;
    if ((rc = verify_hex_args(&va)) != 0) return rc;
    size_t flen = 0;
    uint8_t *file = slurp(va.pname, MAX_PROOF_FILE, &flen);
    if (!file) {
        free(va.leaf_data);
        return CLI_USAGE;
    }
    const char *ft = (const char *)file;
    if (flen && file[0] != 'M' &&
        (strstr(ft, "\"multiproof\"") || strstr(ft, "\"proofFlags\"") ||
         strstr(ft, "\"proof_flags\"") || strstr(ft, "\"gindices\""))) {
        rc = verify_multiproof(va.pname, ft, flen, va.root_hex ? va.root : NULL,
                               !!(va.leaf_file || va.leaf_hex || va.old_root_hex), va.untrusted,
                               va.types, va.leaf_hash_hex ? va.leaf_hash : NULL);
    } else {
        loaded_proof *lp = calloc(1, sizeof *lp);
        if (!lp) {
            cli_error("out of memory");
            rc = CLI_FAIL;
        } else if ((rc = verify_decode(lp, va.pname, file, flen)) == 0) {
            rc = verify_proof(&va, lp);
        }
        if (lp) free(lp->stored_leaf);
        free(lp);
    }
    free(file);
    free(va.leaf_data);
    return rc;
}
