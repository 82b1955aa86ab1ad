/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkledb proofs on the command line (issue 24, docs/merkledb.md):
**   merkle trie prove-range  [--branch-factor N] [--start KEY] [--end KEY] [--max-length N]
**                            [--at-root ID] [--history-length N] [FILE]
**   merkle trie prove-change --from-root ID --to-root ID [--branch-factor N] [--start KEY]
**                            [--end KEY] [--max-length N] [--history-length N] [FILE]
**   merkle trie verify-range  PROOF --root ID [--branch-factor N] [--start KEY] [--end KEY]
**                            [--max-length N]
**   merkle trie verify-change PROOF --db FILE --root ID [--branch-factor N] [--start KEY]
**                            [--end KEY] [--max-length N]
** and the merkledb form of `trie prove` / `trie verify` (--format merkledb), called from
** cmd_trie.c. FILE is a trie operation file in which a line `commit` ends a batch (one
** history entry each; without `commit` the whole file is one batch).
*/
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "trie_mdb.h"

/* ------------------------------------------------------------------ options */

static const cli_opt mdb_bf_opts[] = {
    { 'b', "branch-factor", "N", "2 4 16 256", "2, 4, 16 (the default, as merkledb) or 256", NULL },
    CLI_OPT_END_ROW,
};

static const cli_opt mdb_range_opts[] = {
    { OPT_MDB_START, "start", "KEY", NULL,
      "lower bound of the range (hex, '-' = empty key); none: unbounded", NULL },
    { OPT_MDB_END, "end", "KEY", NULL,
      "upper bound of the range (hex, '-' = empty key); none: unbounded", NULL },
    { OPT_MDB_MAX_LENGTH, "max-length", "N", NULL, "at most N key/values (default: no limit)",
      NULL },
    CLI_OPT_END_ROW,
};

static const cli_opt mdb_history_opts[] = {
    { OPT_MDB_HISTORY_LENGTH, "history-length", "N", NULL,
      "keep the last N recorded commits (default 300, as merkledb)", NULL },
    CLI_OPT_END_ROW,
};

static const cli_opt mdb_at_root_opts[] = {
    { OPT_MDB_AT_ROOT, "at-root", "ID", NULL,
      "prove at this earlier root of FILE's history (64 hex digits or cb58)", NULL },
    CLI_OPT_HELP_ROW,
    CLI_OPT_END_ROW,
};

static const cli_opt mdb_change_opts[] = {
    { OPT_MDB_FROM_ROOT, "from-root", "ID", NULL, "the start root (required)", NULL },
    { OPT_MDB_TO_ROOT, "to-root", "ID", NULL, "the end root (required)", NULL },
    CLI_OPT_HELP_ROW,
    CLI_OPT_END_ROW,
};

static const cli_opt mdb_verify_opts[] = {
    { 'r', "root", "ID", NULL, "the trusted root ID: 64 hex digits or cb58 (required)", NULL },
    CLI_OPT_HELP_ROW,
    CLI_OPT_END_ROW,
};

static const cli_opt mdb_db_opts[] = {
    { OPT_MDB_DB, "db", "FILE", CLI_VALUES_FILE,
      "operation file whose state the verifying database holds (required)", NULL },
    CLI_OPT_END_ROW,
};

#define MDB_OPS_TEXT                                                                               \
    "FILE (default: standard input; '-' too) holds trie operations, one per line: 'put KEYHEX\n"   \
    "VALUEHEX', 'del KEYHEX' ('-' = empty), and 'commit', which ends a batch (each batch is one\n" \
    "history entry; without 'commit' the whole file is one batch).\n"
#define MDB_PROVE_EXIT                                                                             \
    "Exit status: 0 success, 1 a request merkledb refuses (printed as 'FAILED: reason\n"           \
    "(merkledb: Sentinel)') or an unreadable or malformed FILE, 2 usage error.\n"
#define MDB_VERIFY_EXIT                                                                            \
    "Prints 'OK' or 'FAILED: reason (merkledb: Sentinel)'. Exit status: 0 OK, 1 FAILED, 2\n"       \
    "usage error or a proof that cannot be decoded (also printed as FAILED naming the "            \
    "sentinel).\n"

const cli_cmd trie_prove_range_spec = {
    "trie prove-range",
    "write a merkledb range proof (sync.RangeProof)",
    "Usage: merkle trie prove-range [--branch-factor N] [--start KEY] [--end KEY]\n"
    "                               [--max-length N] [--at-root ID] [--history-length N] [FILE]\n"
    "Write GetRangeProof(start, end, max-length) of the database FILE builds (or, with\n"
    "--at-root, GetRangeProofAtRoot) as the deterministic proto3 bytes of sync.RangeProof\n"
    "to standard output.\n" MDB_OPS_TEXT,
    { mdb_bf_opts, mdb_range_opts, mdb_history_opts, mdb_at_root_opts },
    MDB_PROVE_EXIT,
    0,
};

const cli_cmd trie_prove_change_spec = {
    "trie prove-change",
    "write a merkledb change proof (sync.ChangeProof)",
    "Usage: merkle trie prove-change --from-root ID --to-root ID [--branch-factor N]\n"
    "                                [--start KEY] [--end KEY] [--max-length N]\n"
    "                                [--history-length N] [FILE]\n"
    "Write GetChangeProof(from-root, to-root, start, end, max-length) over FILE's history as\n"
    "the deterministic proto3 bytes of sync.ChangeProof to standard output.\n" MDB_OPS_TEXT,
    { mdb_bf_opts, mdb_range_opts, mdb_history_opts, mdb_change_opts },
    MDB_PROVE_EXIT,
    0,
};

const cli_cmd trie_verify_range_spec = {
    "trie verify-range",
    "check a merkledb range proof against a trusted root",
    "Usage: merkle trie verify-range PROOF --root ID [--branch-factor N] [--start KEY]\n"
    "                                [--end KEY] [--max-length N]\n"
    "Check PROOF (sync.RangeProof bytes; a file or - for standard input) as\n"
    "MerkleDB.VerifyRangeProof does.\n",
    { mdb_bf_opts, mdb_range_opts, mdb_verify_opts },
    MDB_VERIFY_EXIT,
    0,
};

const cli_cmd trie_verify_change_spec = {
    "trie verify-change",
    "check a merkledb change proof against a database and a trusted root",
    "Usage: merkle trie verify-change PROOF --db FILE --root ID [--branch-factor N]\n"
    "                                 [--start KEY] [--end KEY] [--max-length N]\n"
    "Check PROOF (sync.ChangeProof bytes; a file or - for standard input) as\n"
    "MerkleDB.VerifyChangeProof does on a database holding the state of the operation file\n"
    "FILE ('commit' lines allowed).\n",
    { mdb_bf_opts, mdb_range_opts, mdb_db_opts, mdb_verify_opts },
    MDB_VERIFY_EXIT,
    0,
};

/* ------------------------------------------------------------------ operation files */

static char *read_named(const char *name, size_t *len)
{
    char *buf;
    int e = cli_read_file(name, SIZE_MAX / 2, &buf, len);
    if (e) {
        cli_read_error("trie", name, e, SIZE_MAX / 2);
        return NULL;
    }
    return buf;
}

/* Decode a hex field in place ('-' = empty); -1 if not hex. */
static int unhex_field(char *f, size_t n, uint8_t **out, size_t *olen)
{
    if (n == 1 && f[0] == '-') {
        *out = (uint8_t *)f;
        *olen = 0;
        return 0;
    }
    merkle_error e;
    if (merkle_hex_decode((uint8_t *)f, n / 2 + 1, olen, f, n, &e) != MERKLE_OK) return -1;
    *out = (uint8_t *)f;
    return 0;
}

/* Build db from the operation file name: batches separated by 'commit' lines. */
static int build_db(merkle_mdb_db *db, const char *name)
{
    size_t len;
    char *buf = read_named(name, &len);
    if (buf == NULL) return CLI_FAIL;
    const char *shown = strcmp(name, "-") == 0 ? "(standard input)" : name;
    merkle_mdb_op *ops = NULL;
    size_t nops = 0, cap = 0, line = 0;
    int rc = CLI_OK, pending = 0;
    char *p = buf, *end = buf + len;
    while (p < end && rc == CLI_OK) {
        char *eol = memchr(p, '\n', (size_t)(end - p));
        if (eol == NULL) eol = end;
        line++;
        char *f[4];
        size_t fl[4];
        int nf = 0;
        char *q = p;
        while (q < eol) {
            while (q < eol && (*q == ' ' || *q == '\t' || *q == '\r')) q++;
            if (q == eol || *q == '#') break;
            char *s = q;
            while (q < eol && *q != ' ' && *q != '\t' && *q != '\r') q++;
            if (nf == 4) {
                nf = 5;
                break;
            }
            f[nf] = s;
            fl[nf] = (size_t)(q - s);
            nf++;
        }
        p = eol + 1;
        if (nf == 0) continue;
        if (nf == 1 && fl[0] == 6 && memcmp(f[0], "commit", 6) == 0) {
            if (merkle_mdb_db_commit(db, ops, nops, NULL, NULL) != MERKLE_OK) {
                cli_error("trie: %s:%zu: out of memory", shown, line);
                rc = CLI_FAIL;
            }
            nops = 0;
            pending = 0;
            continue;
        }
        int put = fl[0] == 3 && memcmp(f[0], "put", 3) == 0;
        int del = fl[0] == 3 && memcmp(f[0], "del", 3) == 0;
        if ((!put && !del) || (put && nf != 3) || (del && nf != 2)) {
            cli_error("trie: %s:%zu: expected 'put KEYHEX VALUEHEX', 'del KEYHEX' or 'commit'",
                      shown, line);
            rc = CLI_FAIL;
            break;
        }
        if (nops == cap) {
            size_t nc = cap ? 2 * cap : 64;
            merkle_mdb_op *no = realloc(ops, nc * sizeof *no);
            if (no == NULL) {
                cli_error("trie: %s: out of memory", shown);
                rc = CLI_FAIL;
                break;
            }
            ops = no;
            cap = nc;
        }
        merkle_mdb_op *op = &ops[nops];
        uint8_t *k, *v = NULL;
        size_t kl, vl = 0;
        if (unhex_field(f[1], fl[1], &k, &kl) != 0 || (put && unhex_field(f[2], fl[2], &v, &vl))) {
            cli_error("trie: %s:%zu: bad hex", shown, line);
            rc = CLI_FAIL;
            break;
        }
        *op = (merkle_mdb_op){ k, kl, v, vl, del };
        nops++;
        pending = 1;
    }
    if (rc == CLI_OK && (pending || nops)) {
        merkle_error e;
        if (merkle_mdb_db_commit(db, ops, nops, NULL, &e) != MERKLE_OK) {
            cli_error("trie: %s: %s", shown, e.message);
            rc = CLI_FAIL;
        }
    }
    free(ops);
    free(buf);
    return rc;
}

/* ------------------------------------------------------------------ arguments */

typedef struct mdb_args {
    unsigned bf;
    const char *start_s, *end_s, *root_s, *at_s, *from_s, *to_s, *db_s;
    int has_max;
    int64_t max;
    size_t hist;
} mdb_args;

typedef struct keybuf {
    uint8_t *p;
    merkle_mdb_maybe m;
} keybuf;

static int parse_key(const cli_cmd *cmd, const char *what, const char *s, keybuf *k)
{
    k->p = NULL;
    k->m = (merkle_mdb_maybe){ NULL, 0, 0 };
    if (s == NULL) return 0;
    size_t n = strlen(s);
    k->m.some = 1;
    if (n == 1 && s[0] == '-') return 0;
    k->p = malloc(n / 2 + 1);
    merkle_error e;
    if (k->p == NULL) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    if (merkle_hex_decode(k->p, n / 2 + 1, &k->m.len, s, n, &e) != MERKLE_OK) {
        free(k->p);
        k->p = NULL;
        return cli_cmd_usage(cmd, "%s: %s", what, e.message);
    }
    k->m.ptr = k->p;
    return 0;
}

static int parse_id(const cli_cmd *cmd, const char *what, const char *s, uint8_t out[32])
{
    merkle_error e;
    if (merkle_trie_id_parse(out, s, &e) != MERKLE_OK)
        return cli_cmd_usage(cmd, "%s: %s", what, e.message);
    return 0;
}

/* 0, -1 after --help, or a usage status. */
static int parse_args(const cli_cmd *cmd, int argc, char **argv, mdb_args *a)
{
    cli_parser p;
    cli_parser_init(&p, cmd, argc, argv);
    const char *arg;
    int c;
    uint64_t v;
    while ((c = cli_opt_next(&p, &arg)) != CLI_OPT_END) {
        switch (c) {
        case CLI_OPT_HELP: return -1;
        case CLI_OPT_ERROR: return cli_cmd_usage_rc(cmd);
        case 'b':
            if (cli_parse_u64(arg, &v) != 0 || (v != 2 && v != 4 && v != 16 && v != 256))
                return cli_cmd_usage(cmd, "--branch-factor must be 2, 4, 16 or 256, not '%s'", arg);
            a->bf = (unsigned)v;
            break;
        case OPT_MDB_START: a->start_s = arg; break;
        case OPT_MDB_END: a->end_s = arg; break;
        case OPT_MDB_MAX_LENGTH:
            if (cli_parse_u64(arg, &v) != 0 || v > (uint64_t)INT64_MAX)
                return cli_cmd_usage(cmd, "--max-length must be a number, not '%s'", arg);
            a->has_max = 1;
            a->max = (int64_t)v;
            break;
        case OPT_MDB_HISTORY_LENGTH:
            if (cli_parse_u64(arg, &v) != 0 || v == 0 || v > 100000000)
                return cli_cmd_usage(cmd, "--history-length must be 1 to 100000000, not '%s'", arg);
            a->hist = (size_t)v;
            break;
        case OPT_MDB_AT_ROOT: a->at_s = arg; break;
        case OPT_MDB_FROM_ROOT: a->from_s = arg; break;
        case OPT_MDB_TO_ROOT: a->to_s = arg; break;
        case OPT_MDB_DB: a->db_s = arg; break;
        case 'r': a->root_s = arg; break;
        default: break;
        }
    }
    return 0;
}

/* "FAILED: reason (merkledb: Sentinel)" on standard output. */
static void print_failed(const merkle_mdb_result *res)
{
    printf("FAILED: %s (merkledb: %s)\n", res->message, merkle_mdb_kind_name(res->kind));
}

static int finish_stdout(int rc)
{
    if (fflush(stdout) != 0) {
        cli_error("write error: %s", strerror(errno));
        return rc == CLI_OK ? CLI_FAIL : rc;
    }
    return rc;
}

/* ------------------------------------------------------------------ commands */

static int do_prove(const cli_cmd *cmd, int change, mdb_args *a, const char *file)
{
    keybuf ks, ke;
    uint8_t at[32], from[32], to[32];
    int rc;
    if (change && (a->from_s == NULL || a->to_s == NULL))
        return cli_cmd_usage(cmd, "--from-root ID and --to-root ID are required");
    if (a->at_s && (rc = parse_id(cmd, "--at-root", a->at_s, at)) != 0) return rc;
    if (a->from_s && (rc = parse_id(cmd, "--from-root", a->from_s, from)) != 0) return rc;
    if (a->to_s && (rc = parse_id(cmd, "--to-root", a->to_s, to)) != 0) return rc;
    if ((rc = parse_key(cmd, "--start", a->start_s, &ks)) != 0) return rc;
    if ((rc = parse_key(cmd, "--end", a->end_s, &ke)) != 0) {
        free(ks.p);
        return rc;
    }
    merkle_mdb_db *db = NULL;
    if (merkle_mdb_db_alloc(&db, a->bf, a->hist) != MERKLE_OK) {
        cli_error("out of memory");
        rc = CLI_FAIL;
    } else {
        rc = build_db(db, file);
    }
    if (rc == CLI_OK) {
        merkle_mdb_result res;
        merkle_mdb_proof *p = NULL;
        int64_t maxl = a->has_max ? a->max : INT64_MAX;
        merkle_status st =
            change ? merkle_mdb_prove_change(&p, &res, db, from, to, ks.m, ke.m, maxl)
                   : merkle_mdb_prove_range(&p, &res, db, ks.m, ke.m, maxl, a->at_s ? at : NULL);
        if (st == MERKLE_ERR_STATE) {
            print_failed(&res);
            rc = CLI_FAIL;
        } else if (st != MERKLE_OK) {
            cli_error("trie: %s", merkle_strerror(st));
            rc = CLI_FAIL;
        } else {
            merkle_mdb_msg msg = change ? MERKLE_MDB_CHANGE_PROOF : MERKLE_MDB_RANGE_PROOF;
            size_t need;
            (void)merkle_mdb_proof_encode(NULL, 0, &need, p, msg);
            uint8_t *buf = malloc(need + 1);
            if (buf == NULL || merkle_mdb_proof_encode(buf, need, &need, p, msg) != MERKLE_OK) {
                cli_error("out of memory");
                rc = CLI_FAIL;
            } else if (need && fwrite(buf, 1, need, stdout) != need) {
                cli_error("write error: %s", strerror(errno));
                rc = CLI_FAIL;
            }
            free(buf);
        }
        merkle_mdb_proof_free(p);
    }
    merkle_mdb_db_free(db);
    free(ks.p);
    free(ke.p);
    return finish_stdout(rc);
}

static int do_verify(const cli_cmd *cmd, int change, mdb_args *a, const char *proof_name)
{
    uint8_t root[32];
    keybuf ks, ke;
    int rc;
    if (a->root_s == NULL) return cli_cmd_usage(cmd, "--root ID is required");
    if (change && a->db_s == NULL) return cli_cmd_usage(cmd, "--db FILE is required");
    if ((rc = parse_id(cmd, "--root", a->root_s, root)) != 0) return rc;
    if ((rc = parse_key(cmd, "--start", a->start_s, &ks)) != 0) return rc;
    if ((rc = parse_key(cmd, "--end", a->end_s, &ke)) != 0) {
        free(ks.p);
        return rc;
    }
    size_t len;
    char *buf = read_named(proof_name, &len);
    merkle_mdb_db *db = NULL;
    if (buf == NULL) {
        rc = CLI_USAGE;
    } else if (change) {
        if (merkle_mdb_db_alloc(&db, a->bf, 0) != MERKLE_OK) {
            cli_error("out of memory");
            rc = CLI_FAIL;
        } else {
            rc = build_db(db, a->db_s);
        }
    }
    if (rc == CLI_OK) {
        merkle_mdb_result res;
        merkle_mdb_proof *p = NULL;
        merkle_mdb_msg msg = change ? MERKLE_MDB_CHANGE_PROOF : MERKLE_MDB_RANGE_PROOF;
        merkle_status st = merkle_mdb_proof_decode(&p, &res, msg, (const uint8_t *)buf, len);
        int64_t maxl = a->has_max ? a->max : INT64_MAX;
        if (st == MERKLE_ERR_FORMAT) {
            print_failed(&res);
            rc = CLI_USAGE;
        } else if (st != MERKLE_OK) {
            cli_error("trie: %s: %s", proof_name, merkle_strerror(st));
            rc = st == MERKLE_ERR_RANGE ? CLI_USAGE : CLI_FAIL;
        } else {
            st = change ? merkle_mdb_verify_change(&res, p, merkle_mdb_db_trie(db), ks.m, ke.m,
                                                   root, maxl)
                        : merkle_mdb_verify_range(&res, p, ks.m, ke.m, root, a->bf, maxl);
            if (st == MERKLE_OK) {
                puts("OK");
            } else if (st == MERKLE_ERR_VERIFY) {
                print_failed(&res);
                rc = CLI_FAIL;
            } else {
                cli_error("trie: %s", merkle_strerror(st));
                rc = CLI_FAIL;
            }
        }
        merkle_mdb_proof_free(p);
    }
    merkle_mdb_db_free(db);
    free(buf);
    free(ks.p);
    free(ke.p);
    return finish_stdout(rc);
}

int cmd_trie_mdb(const char *action, int argc, char **argv)
{
    int range_p = strcmp(action, "prove-range") == 0,
        change_p = strcmp(action, "prove-change") == 0;
    int range_v = strcmp(action, "verify-range") == 0;
    const cli_cmd *cmd = range_p    ? &trie_prove_range_spec
                         : change_p ? &trie_prove_change_spec
                         : range_v  ? &trie_verify_range_spec
                                    : &trie_verify_change_spec;
    mdb_args a;
    memset(&a, 0, sizeof a);
    a.bf = 16;
    int prc = parse_args(cmd, argc, argv, &a);
    if (prc) return prc < 0 ? CLI_OK : prc;
    int npos = argc - optind;
    if (range_p || change_p) {
        if (npos > 1) return cli_cmd_usage(cmd, "at most one FILE");
        return do_prove(cmd, change_p, &a, npos == 1 ? argv[optind] : "-");
    }
    if (npos != 1) return cli_cmd_usage(cmd, "expected exactly one PROOF file");
    return do_verify(cmd, !range_v, &a, argv[optind]);
}

/* ------------------------------------------------------------------ key proofs */

int trie_mdb_prove_key(unsigned bf, const uint8_t *key, size_t key_len, const char *file)
{
    merkle_mdb_db *db = NULL;
    if (merkle_mdb_db_alloc(&db, bf, 0) != MERKLE_OK) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    int rc = build_db(db, file);
    if (rc == CLI_OK) {
        merkle_mdb_result res;
        merkle_mdb_proof *p = NULL;
        merkle_status st =
            merkle_mdb_prove_key(&p, NULL, &res, merkle_mdb_db_trie(db), key, key_len);
        if (st == MERKLE_ERR_STATE) {
            print_failed(&res);
            rc = CLI_FAIL;
        } else if (st != MERKLE_OK) {
            cli_error("trie prove: %s", merkle_strerror(st));
            rc = CLI_FAIL;
        } else {
            for (size_t i = 0; i < p->nstart && rc == CLI_OK; i++) {
                size_t need;
                (void)merkle_mdb_node_encode(NULL, 0, &need, &p->start_proof[i]);
                uint8_t *b = malloc(need + 1);
                char *h = malloc(2 * need + 1);
                if (b == NULL || h == NULL ||
                    merkle_mdb_node_encode(b, need, &need, &p->start_proof[i]) != MERKLE_OK) {
                    cli_error("out of memory");
                    rc = CLI_FAIL;
                } else {
                    merkle_hex_encode(h, b, need);
                    printf("%s\n", h);
                }
                free(b);
                free(h);
            }
        }
        merkle_mdb_proof_free(p);
    }
    merkle_mdb_db_free(db);
    return finish_stdout(rc);
}

int trie_mdb_verify_key(const char *proof_name, const uint8_t root[32], unsigned bf,
                        const uint8_t *key, size_t key_len, merkle_mdb_maybe value)
{
    size_t len;
    char *buf = read_named(proof_name, &len);
    if (buf == NULL) return CLI_USAGE;
    /* One hex line per sync.ProofNode; blank lines ignored. */
    size_t n = 0, cap = 0;
    uint8_t **nodes = NULL;
    size_t *lens = NULL;
    int rc = CLI_OK;
    char *p = buf, *end = buf + len;
    while (p < end && rc == CLI_OK) {
        char *eol = memchr(p, '\n', (size_t)(end - p));
        if (eol == NULL) eol = end;
        char *s = p;
        char *e = eol;
        p = eol + 1;
        while (s < e && (*s == ' ' || *s == '\t' || *s == '\r')) s++;
        while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r')) e--;
        if (s == e) continue;
        if (n == cap) {
            size_t nc = cap ? 2 * cap : 16;
            uint8_t **nn = realloc(nodes, nc * sizeof *nn);
            if (nn) nodes = nn;
            size_t *nl = nn ? realloc(lens, nc * sizeof *nl) : NULL;
            if (nl == NULL) {
                cli_error("out of memory");
                rc = CLI_FAIL;
                break;
            }
            lens = nl;
            cap = nc;
        }
        merkle_error err;
        size_t hl = (size_t)(e - s);
        if (merkle_hex_decode((uint8_t *)s, hl / 2 + 1, &lens[n], s, hl, &err) != MERKLE_OK) {
            cli_error("trie verify: %s: not one hex sync.ProofNode per line: %s", proof_name,
                      err.message);
            rc = CLI_USAGE;
            break;
        }
        nodes[n++] = (uint8_t *)s;
    }
    if (rc == CLI_OK) {
        merkle_mdb_result res;
        merkle_mdb_proof *pr = NULL;
        merkle_status st =
            merkle_mdb_path_decode(&pr, &res, (const uint8_t *const *)nodes, lens, n);
        if (st == MERKLE_ERR_FORMAT) {
            print_failed(&res);
            rc = CLI_USAGE;
        } else if (st != MERKLE_OK) {
            cli_error("trie verify: %s", merkle_strerror(st));
            rc = CLI_FAIL;
        } else {
            st = merkle_mdb_verify_key(&res, pr, key, key_len, value, root, bf);
            if (st == MERKLE_OK) {
                puts("OK");
            } else if (st == MERKLE_ERR_VERIFY) {
                print_failed(&res);
                rc = CLI_FAIL;
            } else {
                cli_error("trie verify: %s", merkle_strerror(st));
                rc = CLI_FAIL;
            }
        }
        merkle_mdb_proof_free(pr);
    }
    free(nodes);
    free(lens);
    free(buf);
    return finish_stdout(rc);
}
