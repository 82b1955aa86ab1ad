/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** avalanchego merkledb proofs (merkle/mdb.h) from the command line (issue 24's contract):
**
** merkle trie prove-range [--branch-factor N] [--start KEY] [--end KEY] [--max-length N]
**                         [--at-root ID] [--history-length N] [FILE]
** merkle trie prove-change --from-root ID --to-root ID [--branch-factor N] [--start KEY]
**                          [--end KEY] [--max-length N] [--history-length N] [FILE]
** merkle trie verify-range PROOF --root ID [--branch-factor N] [--start KEY] [--end KEY]
**                          [--max-length N]
** merkle trie verify-change PROOF --db FILE --root ID [--branch-factor N] [--start KEY]
**                           [--end KEY] [--max-length N]
** merkle trie prove --format merkledb --key KEY [FILE]         (cmd_trie.c calls in here)
** merkle trie verify --format merkledb PROOF --root ID --key KEY (--value HEX | --absent)
**
** KEY is hex ('-' the empty key); an absent --start/--end is no bound. FILE is a trie
** operation file where a line 'commit' ends a batch (one history entry each). Verdicts:
** 'OK' (0), or 'FAILED: <reason> (merkledb: <Go sentinel>)' (1; 2 for a proof that cannot
** be decoded); a request Go refuses prints the FAILED line too and exits 1.
*/
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "merkle/mdb.h"

/* ------------------------------------------------------------------ options */

/* Branch factor and bounds: every merkledb action takes them (one table, so that merkle(1)
** describes them once). */
static const cli_opt mdb_bounds_opts[] = {
    { 'b', "branch-factor", "N", "2 4 16 256", "2, 4, 16 (the default, as merkledb) or 256", NULL },
    { OPT_START, "start", "KEY", NULL, "lower bound (hex, '-' = the empty key; default: none)",
      NULL },
    { OPT_END, "end", "KEY", NULL, "upper bound (hex, '-' = the empty key; default: none)", NULL },
    { OPT_MAX_LENGTH, "max-length", "N", NULL,
      "at most N key/values (merkledb's maxLength; default: no limit)", NULL },
    CLI_OPT_END_ROW,
};

static const cli_opt mdb_history_opts[] = {
    { OPT_HISTORY_LENGTH, "history-length", "N", NULL,
      "keep the last N committed batches (default 300, as merkledb)", NULL },
    CLI_OPT_HELP_ROW,
    CLI_OPT_END_ROW,
};

static const cli_opt prove_range_opts[] = {
    { OPT_AT_ROOT, "at-root", "ID", NULL,
      "prove against this earlier root of FILE's history (GetRangeProofAtRoot)", NULL },
    CLI_OPT_END_ROW,
};

static const cli_opt prove_change_opts[] = {
    { OPT_FROM_ROOT, "from-root", "ID", NULL, "the start root (required)", NULL },
    { OPT_TO_ROOT, "to-root", "ID", NULL, "the end root (required)", NULL },
    CLI_OPT_END_ROW,
};

static const cli_opt verify_range_opts[] = {
    { 'r', "root", "ID", NULL, "the trusted root ID: 64 hex digits or cb58 (required)", NULL },
    CLI_OPT_END_ROW,
};

static const cli_opt verify_change_opts[] = {
    { OPT_DB, "db", "FILE", CLI_VALUES_FILE,
      "operation file whose final state the verifying database holds (required)", NULL },
    { 'r', "root", "ID", NULL, "the trusted end root ID: 64 hex digits or cb58 (required)", NULL },
    CLI_OPT_END_ROW,
};

static const cli_opt mdb_help_opts[] = {
    CLI_OPT_HELP_ROW,
    CLI_OPT_END_ROW,
};

#define MDB_OPS_TEXT                                                                               \
    "FILE (default: standard input; '-' too) holds one operation per line: 'put KEYHEX\n"          \
    "VALUEHEX', 'del KEYHEX' or 'commit', which ends a batch (one history entry each;\n"           \
    "without 'commit' the whole file is one batch). A lone '-' is an empty key or value.\n"
#define MDB_VERDICT_TEXT "Prints 'OK' or 'FAILED: <reason> (merkledb: <Go sentinel name>)'.\n"
#define MDB_PROVE_EXIT                                                                             \
    "Exit status: 0 success, 1 a request merkledb refuses (the FAILED line names the\n"            \
    "sentinel, on standard output) or an unreadable or malformed FILE, 2 usage error.\n"
#define MDB_VERIFY_EXIT                                                                            \
    "Exit status: 0 OK, 1 FAILED, 2 a proof that cannot be decoded (FAILED line naming the\n"      \
    "sentinel), an unreadable file or a usage error.\n"

const cli_cmd trie_prove_range_spec = {
    "trie prove-range",
    "write a merkledb range proof (sync.RangeProof)",
    "Usage: merkle trie prove-range [--branch-factor N] [--start KEY] [--end KEY]\n"
    "         [--max-length N] [--at-root ID] [--history-length N] [FILE]\n"
    "Write the deterministic proto3 bytes of avalanchego's sync.RangeProof (children in\n"
    "ascending index) for GetRangeProof(start, end, maxLength), or GetRangeProofAtRoot with\n"
    "--at-root, to standard output.\n" MDB_OPS_TEXT,
    { prove_range_opts, mdb_bounds_opts, mdb_history_opts },
    MDB_PROVE_EXIT,
    0,
};

const cli_cmd trie_prove_change_spec = {
    "trie prove-change",
    "write a merkledb change proof (sync.ChangeProof)",
    "Usage: merkle trie prove-change --from-root ID --to-root ID [--branch-factor N]\n"
    "         [--start KEY] [--end KEY] [--max-length N] [--history-length N] [FILE]\n"
    "Write the deterministic proto3 bytes of avalanchego's sync.ChangeProof for\n"
    "GetChangeProof(from, to, start, end, maxLength) over FILE's history.\n" MDB_OPS_TEXT,
    { prove_change_opts, mdb_bounds_opts, mdb_history_opts },
    MDB_PROVE_EXIT,
    0,
};

const cli_cmd trie_verify_range_spec = {
    "trie verify-range",
    "check a merkledb range proof against a trusted root",
    "Usage: merkle trie verify-range PROOF --root ID [--branch-factor N] [--start KEY]\n"
    "         [--end KEY] [--max-length N]\n"
    "Decode PROOF (sync.RangeProof bytes; a file, or - for standard input) and run\n"
    "RangeProof.Verify(start, end, root, tokenSize(N), maxLength).\n" MDB_VERDICT_TEXT,
    { verify_range_opts, mdb_bounds_opts, mdb_help_opts },
    MDB_VERIFY_EXIT,
    0,
};

const cli_cmd trie_verify_change_spec = {
    "trie verify-change",
    "check a merkledb change proof against a database and a root",
    "Usage: merkle trie verify-change PROOF --db FILE --root ID [--branch-factor N]\n"
    "         [--start KEY] [--end KEY] [--max-length N]\n"
    "Decode PROOF (sync.ChangeProof bytes) and run MerkleDB.VerifyChangeProof(proof, start,\n"
    "end, root, maxLength) on a database holding the state FILE's operations build.\n"
    "" MDB_VERDICT_TEXT,
    { verify_change_opts, mdb_bounds_opts, mdb_help_opts },
    MDB_VERIFY_EXIT,
    0,
};

/* ------------------------------------------------------------------ helpers */

static int print_verdict(int kind, const char *message)
{
    printf("FAILED: %s (merkledb: %s)\n", message, merkle_mdb_kind_name(kind));
    return 0;
}

static int finish(int rc)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_error("write error: %s", strerror(errno));
        return rc == CLI_OK ? CLI_FAIL : rc;
    }
    return rc;
}

/* A KEY operand: hex (an optional 0x), '-' or '' the empty key. Allocates m->ptr. */
static int parse_key(const char *s, merkle_mdb_maybe *m, uint8_t **owned)
{
    s = cli_skip_0x(s);
    size_t n = strlen(s);
    *owned = malloc(n / 2 + 1);
    if (*owned == NULL) return -1;
    m->ptr = *owned;
    m->len = 0;
    m->some = 1;
    if (n == 0 || (n == 1 && s[0] == '-')) return 0;
    merkle_error e;
    if (merkle_hex_decode(*owned, n / 2 + 1, &m->len, s, n, &e) != MERKLE_OK) return -1;
    return 0;
}

static int parse_id(const cli_cmd *cmd, const char *opt, const char *s, uint8_t id[32])
{
    merkle_error e;
    if (merkle_trie_id_parse(id, s, &e) != MERKLE_OK)
        return cli_cmd_usage(cmd, "--%s: %s", opt, e.message);
    return 0;
}

static int parse_i64(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end) return -1;
    *out = (int64_t)v;
    return 0;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* One field of an op line into dst ('-' empty). */
static int field(uint8_t *dst, size_t cap, size_t *n, const char *f, size_t fl)
{
    merkle_error e;
    if (fl == 1 && f[0] == '-') {
        *n = 0;
        return 0;
    }
    return merkle_hex_decode(dst, cap, n, f, fl, &e) == MERKLE_OK ? 0 : -1;
}

/*
** Build a database from operation file name: each 'commit' (and the end) commits the
** operations since the last one as one batch. NULL after printing the reason.
*/
static merkle_mdb_db *load_db(const char *name, unsigned bf, size_t hist)
{
    size_t len;
    char *text;
    int err = cli_read_file(name, SIZE_MAX / 2, &text, &len);
    if (err) {
        cli_read_error("trie", name, err, SIZE_MAX / 2);
        return NULL;
    }
    const char *shown = strcmp(name, "-") == 0 ? "(standard input)" : name;
    merkle_mdb_db *db = NULL;
    uint8_t *bytes = malloc(len / 2 + 1);
    merkle_mdb_op *ops = malloc((len / 4 + 1) * sizeof *ops); /* an op line has >= 5 chars */
    if (bytes == NULL || ops == NULL || merkle_mdb_db_alloc(&db, bf, hist) != MERKLE_OK) {
        cli_error("trie: %s: out of memory", shown);
        goto fail;
    }
    size_t pos = 0, used = 0, nops = 0;
    uint64_t line = 0;
    for (;;) {
        int at_end = pos >= len, is_commit = 0;
        const char *f[3] = { NULL, NULL, NULL };
        size_t fl[3] = { 0, 0, 0 };
        int nf = 0, extra = 0;
        if (!at_end) {
            line++;
            const char *nl = memchr(text + pos, '\n', len - pos);
            size_t end = nl ? (size_t)(nl - text) : len, i = pos;
            while (i < end) {
                while (i < end && is_space(text[i])) i++;
                if (i >= end || text[i] == '#') break;
                size_t s = i;
                while (i < end && !is_space(text[i])) i++;
                if (nf < 3) {
                    f[nf] = text + s;
                    fl[nf++] = i - s;
                } else {
                    extra = 1;
                }
            }
            pos = end + 1;
            if (nf == 0) continue;
            is_commit = fl[0] == 6 && memcmp(f[0], "commit", 6) == 0;
        }
        if (at_end || is_commit) {
            if (is_commit && nf != 1) {
                cli_error("trie: %s:%llu: commit takes no field", shown, (unsigned long long)line);
                goto fail;
            }
            merkle_error e;
            if (merkle_mdb_db_commit(db, ops, nops, NULL, &e) != MERKLE_OK) {
                cli_error("trie: %s:%llu: %s", shown, (unsigned long long)line, e.message);
                goto fail;
            }
            nops = 0;
            if (at_end) break;
            continue;
        }
        int is_put = fl[0] == 3 && memcmp(f[0], "put", 3) == 0;
        int is_del = fl[0] == 3 && memcmp(f[0], "del", 3) == 0;
        if (!is_put && !is_del) {
            int show = fl[0] > 40 ? 40 : (int)fl[0];
            for (int k = 0; k < show; k++)
                if ((unsigned char)f[0][k] < 0x20 || (unsigned char)f[0][k] > 0x7e) show = k;
            cli_error("trie: %s:%llu: unknown operation '%.*s' (expected put, del or commit)",
                      shown, (unsigned long long)line, show, f[0]);
            goto fail;
        }
        if (nf != (is_put ? 3 : 2) || extra) {
            cli_error("trie: %s:%llu: %s", shown, (unsigned long long)line,
                      is_put ? "put needs KEYHEX and VALUEHEX" : "del needs KEYHEX");
            goto fail;
        }
        merkle_mdb_op *op = &ops[nops];
        memset(op, 0, sizeof *op);
        op->key = bytes + used;
        if (field(bytes + used, len / 2 + 1 - used, &op->key_len, f[1], fl[1]) != 0) {
            cli_error("trie: %s:%llu: bad hex key", shown, (unsigned long long)line);
            goto fail;
        }
        used += op->key_len;
        if (is_put) {
            op->value = bytes + used;
            if (field(bytes + used, len / 2 + 1 - used, &op->value_len, f[2], fl[2]) != 0) {
                cli_error("trie: %s:%llu: bad hex value", shown, (unsigned long long)line);
                goto fail;
            }
            used += op->value_len;
        } else {
            op->del = 1;
        }
        nops++;
    }
    free(ops);
    free(bytes);
    free(text);
    return db;
fail:
    merkle_mdb_db_free(db);
    free(ops);
    free(bytes);
    free(text);
    return NULL;
}

static int write_proof(merkle_mdb_proof *p, merkle_mdb_msg msg)
{
    size_t need = 0;
    merkle_status st = merkle_mdb_proof_encode(NULL, 0, &need, p, msg);
    uint8_t *buf = (st == MERKLE_OK || st == MERKLE_ERR_BUFFER) ? malloc(need ? need : 1) : NULL;
    int rc = CLI_OK;
    if (buf == NULL || merkle_mdb_proof_encode(buf, need, &need, p, msg) != MERKLE_OK) {
        cli_error("trie: %s", buf == NULL ? "out of memory" : "cannot encode the proof");
        rc = CLI_FAIL;
    } else if (need && fwrite(buf, 1, need, stdout) != need) {
        rc = CLI_FAIL;
    }
    free(buf);
    return rc;
}

/* ------------------------------------------------------------------ the actions */

typedef struct mdb_args {
    unsigned bf;
    int64_t max_length;
    size_t hist;
    const char *start_s, *end_s, *at_s, *from_s, *to_s, *root_s, *db_s;
} mdb_args;

int cmd_trie_mdb(int argc, char **argv)
{
    const char *action = argv[0];
    const cli_cmd *cmd = strcmp(action, "prove-range") == 0    ? &trie_prove_range_spec
                         : strcmp(action, "prove-change") == 0 ? &trie_prove_change_spec
                         : strcmp(action, "verify-range") == 0 ? &trie_verify_range_spec
                                                               : &trie_verify_change_spec;
    mdb_args a;
    memset(&a, 0, sizeof a);
    a.bf = 16;
    a.max_length = INT64_MAX;
    cli_parser p;
    cli_parser_init(&p, cmd, argc, argv);
    const char *arg;
    int c;
    uint64_t u;
    while ((c = cli_opt_next(&p, &arg)) != CLI_OPT_END) {
        switch (c) {
        case CLI_OPT_HELP: return CLI_OK;
        case CLI_OPT_ERROR: return cli_cmd_usage_rc(cmd);
        case 'b':
            if (cli_parse_u64(arg, &u) != 0 || (u != 2 && u != 4 && u != 16 && u != 256))
                return cli_cmd_usage(cmd, "--branch-factor must be 2, 4, 16 or 256, not '%s'", arg);
            a.bf = (unsigned)u;
            break;
        case OPT_MAX_LENGTH:
            if (parse_i64(arg, &a.max_length) != 0)
                return cli_cmd_usage(cmd, "--max-length: not an integer: '%s'", arg);
            break;
        case OPT_HISTORY_LENGTH:
            if (cli_parse_u64(arg, &u) != 0 || u == 0 || u > ((uint64_t)1 << 32))
                return cli_cmd_usage(cmd, "--history-length must be 1 to 2^32, not '%s'", arg);
            a.hist = (size_t)u;
            break;
        case OPT_START: a.start_s = arg; break;
        case OPT_END: a.end_s = arg; break;
        case OPT_AT_ROOT: a.at_s = arg; break;
        case OPT_FROM_ROOT: a.from_s = arg; break;
        case OPT_TO_ROOT: a.to_s = arg; break;
        case 'r': a.root_s = arg; break;
        case OPT_DB: a.db_s = arg; break;
        default: break;
        }
    }
    int is_prove = cmd == &trie_prove_range_spec || cmd == &trie_prove_change_spec;
    int npos = argc - optind;
    if (is_prove && npos > 1) return cli_cmd_usage(cmd, "at most one FILE");
    if (!is_prove && npos != 1) return cli_cmd_usage(cmd, "expected exactly one PROOF file");
    uint8_t at[32], from[32], to[32], root[32];
    int rc;
    if (cmd == &trie_prove_change_spec) {
        if (a.from_s == NULL) return cli_cmd_usage(cmd, "--from-root ID is required");
        if (a.to_s == NULL) return cli_cmd_usage(cmd, "--to-root ID is required");
        if ((rc = parse_id(cmd, "from-root", a.from_s, from)) != 0) return rc;
        if ((rc = parse_id(cmd, "to-root", a.to_s, to)) != 0) return rc;
    }
    if (a.at_s && (rc = parse_id(cmd, "at-root", a.at_s, at)) != 0) return rc;
    if (!is_prove) {
        if (a.root_s == NULL) return cli_cmd_usage(cmd, "--root ID is required");
        if ((rc = parse_id(cmd, "root", a.root_s, root)) != 0) return rc;
        if (cmd == &trie_verify_change_spec && a.db_s == NULL)
            return cli_cmd_usage(cmd, "--db FILE is required");
    }
    merkle_mdb_maybe start = { NULL, 0, 0 }, end = { NULL, 0, 0 };
    uint8_t *sb = NULL, *eb = NULL;
    if (a.start_s && parse_key(a.start_s, &start, &sb) != 0) {
        free(sb);
        return cli_cmd_usage(cmd, "--start: not a hex key: '%s'", a.start_s);
    }
    if (a.end_s && parse_key(a.end_s, &end, &eb) != 0) {
        free(sb);
        free(eb);
        return cli_cmd_usage(cmd, "--end: not a hex key: '%s'", a.end_s);
    }
    merkle_mdb_result res;
    merkle_mdb_proof *proof = NULL;
    merkle_mdb_db *db = NULL;
    char *buf = NULL;
    rc = CLI_FAIL;
    if (is_prove) {
        db = load_db(npos == 1 ? argv[optind] : "-", a.bf, a.hist);
        if (db == NULL) goto out;
        merkle_status st =
            cmd == &trie_prove_range_spec
                ? merkle_mdb_prove_range(&proof, &res, db, start, end, a.max_length,
                                         a.at_s ? at : NULL)
                : merkle_mdb_prove_change(&proof, &res, db, from, to, start, end, a.max_length);
        if (st == MERKLE_ERR_STATE) {
            print_verdict(res.kind, res.message);
        } else if (st != MERKLE_OK) {
            cli_error("trie %s: %s", action, merkle_strerror(st));
        } else {
            rc = write_proof(proof, cmd == &trie_prove_range_spec ? MERKLE_MDB_RANGE_PROOF
                                                                  : MERKLE_MDB_CHANGE_PROOF);
        }
        goto out;
    }
    /* verify */
    const char *pname = argv[optind];
    size_t len;
    int e = cli_read_file(pname, MERKLE_MDB_MAX_PROOF, &buf, &len);
    if (e) {
        cli_read_error("trie", pname, e, MERKLE_MDB_MAX_PROOF);
        rc = CLI_USAGE;
        goto out;
    }
    if (cmd == &trie_verify_change_spec && (db = load_db(a.db_s, a.bf, 0)) == NULL) {
        rc = CLI_USAGE;
        goto out;
    }
    merkle_mdb_msg msg =
        cmd == &trie_verify_range_spec ? MERKLE_MDB_RANGE_PROOF : MERKLE_MDB_CHANGE_PROOF;
    merkle_status st = merkle_mdb_proof_decode(&proof, &res, msg, (const uint8_t *)buf, len);
    if (st == MERKLE_ERR_FORMAT || st == MERKLE_ERR_RANGE) {
        if (st == MERKLE_ERR_RANGE) {
            res.kind = MERKLE_MDB_ERR_PROTO;
            snprintf(res.message, sizeof res.message, "proof larger than %zu bytes",
                     (size_t)MERKLE_MDB_MAX_PROOF);
        }
        print_verdict(res.kind, res.message);
        rc = CLI_USAGE;
        goto out;
    }
    if (st == MERKLE_OK)
        st = msg == MERKLE_MDB_RANGE_PROOF
                 ? merkle_mdb_verify_range(&res, proof, start, end, root, a.bf, a.max_length)
                 : merkle_mdb_verify_change(&res, proof, merkle_mdb_db_trie(db), start, end, root,
                                            a.max_length);
    if (st == MERKLE_OK) {
        puts("OK");
        rc = CLI_OK;
    } else if (st == MERKLE_ERR_VERIFY) {
        print_verdict(res.kind, res.message);
    } else {
        cli_error("trie %s: %s", action, merkle_strerror(st));
    }
out:
    merkle_mdb_proof_free(proof);
    merkle_mdb_db_free(db);
    free(buf);
    free(sb);
    free(eb);
    return finish(rc);
}

/* ------------------------------------------------------------------ single-key proofs */

int trie_mdb_prove_key(const char *file, unsigned bf, const uint8_t *key, size_t key_len)
{
    merkle_mdb_db *db = load_db(file, bf, 0);
    if (db == NULL) return CLI_FAIL;
    merkle_mdb_proof *p = NULL;
    merkle_mdb_maybe value;
    merkle_mdb_result res;
    int rc = CLI_FAIL;
    merkle_status st = merkle_mdb_prove_key(&p, &value, &res, merkle_mdb_db_trie(db), key, key_len);
    if (st == MERKLE_ERR_STATE) {
        print_verdict(res.kind, res.message);
    } else if (st != MERKLE_OK) {
        cli_error("trie prove: %s", merkle_strerror(st));
    } else {
        rc = CLI_OK;
        for (size_t i = 0; i < p->nstart && rc == CLI_OK; i++) {
            size_t need = 0;
            (void)merkle_mdb_node_encode(NULL, 0, &need, &p->start_proof[i]);
            uint8_t *nb = malloc(need ? need : 1);
            char *hx = malloc(2 * need + 1);
            if (nb == NULL || hx == NULL ||
                merkle_mdb_node_encode(nb, need, &need, &p->start_proof[i]) != MERKLE_OK) {
                cli_error("trie prove: cannot encode the proof");
                rc = CLI_FAIL;
            } else {
                merkle_hex_encode(hx, nb, need);
                printf("%s\n", need ? hx : "-");
            }
            free(nb);
            free(hx);
        }
    }
    merkle_mdb_proof_free(p);
    merkle_mdb_db_free(db);
    return finish(rc);
}

int trie_mdb_verify_key(const cli_cmd *cmd, const char *proof_name, const char *root_s,
                        const char *key_s, const char *value_s, int absent, unsigned bf)
{
    uint8_t root[32];
    int rc;
    if (root_s == NULL) return cli_cmd_usage(cmd, "--root ID is required");
    if (key_s == NULL) return cli_cmd_usage(cmd, "--key KEY is required");
    if ((value_s == NULL) == (absent == 0))
        return cli_cmd_usage(cmd, "exactly one of --value HEX and --absent is required");
    if ((rc = parse_id(cmd, "root", root_s, root)) != 0) return rc;
    merkle_mdb_maybe key, value = { NULL, 0, 0 };
    uint8_t *kb = NULL, *vb = NULL;
    if (parse_key(key_s, &key, &kb) != 0) {
        free(kb);
        return cli_cmd_usage(cmd, "--key: not a hex key: '%s'", key_s);
    }
    if (value_s && parse_key(value_s, &value, &vb) != 0) {
        free(kb);
        free(vb);
        return cli_cmd_usage(cmd, "--value: not hex: '%s'", value_s);
    }
    size_t len;
    char *text = NULL;
    int e = cli_read_file(proof_name, MERKLE_MDB_MAX_PROOF, &text, &len);
    if (e) {
        cli_read_error("trie", proof_name, e, MERKLE_MDB_MAX_PROOF);
        free(kb);
        free(vb);
        return CLI_USAGE;
    }
    /* One node per line ('-' or an empty line: an empty message); a last newline ends the
    ** last line. */
    size_t n = 0;
    for (size_t i = 0; i < len; i++) n += text[i] == '\n';
    if (len && text[len - 1] != '\n') n++;
    uint8_t **bufs = calloc(n + 1, sizeof *bufs);
    size_t *lens = calloc(n + 1, sizeof *lens);
    uint8_t *bytes = malloc(len / 2 + 1);
    merkle_mdb_proof *p = NULL;
    merkle_mdb_result res;
    rc = CLI_FAIL;
    if (bufs == NULL || lens == NULL || bytes == NULL) {
        cli_error("trie verify: out of memory");
        goto out;
    }
    size_t pos = 0, used = 0;
    for (size_t k = 0; k < n; k++) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len, s = pos, t = end;
        pos = end + 1;
        while (s < t && is_space(text[s])) s++;
        while (t > s && is_space(text[t - 1])) t--;
        bufs[k] = bytes + used;
        if (field(bytes + used, len / 2 + 1 - used, &lens[k], text + s, t - s) != 0) {
            char m[96];
            snprintf(m, sizeof m, "line %zu: not hex", k + 1);
            print_verdict(MERKLE_MDB_ERR_PROTO, m);
            rc = CLI_USAGE;
            goto out;
        }
        used += lens[k];
    }
    merkle_status st = merkle_mdb_path_decode(&p, &res, (const uint8_t *const *)bufs, lens, n);
    if (st == MERKLE_ERR_FORMAT || st == MERKLE_ERR_RANGE) {
        print_verdict(st == MERKLE_ERR_RANGE ? MERKLE_MDB_ERR_PROTO : res.kind,
                      st == MERKLE_ERR_RANGE ? "proof too large" : res.message);
        rc = CLI_USAGE;
        goto out;
    }
    if (st == MERKLE_OK) st = merkle_mdb_verify_key(&res, p, key.ptr, key.len, value, root, bf);
    if (st == MERKLE_OK) {
        puts("OK");
        rc = CLI_OK;
    } else if (st == MERKLE_ERR_VERIFY) {
        print_verdict(res.kind, res.message);
    } else {
        cli_error("trie verify: %s", merkle_strerror(st));
    }
out:
    merkle_mdb_proof_free(p);
    free(bufs);
    free(lens);
    free(bytes);
    free(text);
    free(kb);
    free(vb);
    return finish(rc);
}
