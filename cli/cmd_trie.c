/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle trie root  [--branch-factor 2|4|16|256] [-j N] [FILE]
** merkle trie prove --key HEX [--branch-factor N] [-j N] [FILE]
** merkle trie verify PROOF --root HEX [--key KEY [--value HEX | --absent]] [--branch-factor N]
**
** FILE (or standard input) holds operations, one per line: "put KEYHEX VALUEHEX" or
** "del KEYHEX"; a lone "-" is the empty key or the empty (present) value; blank lines and
** '#' comments are ignored.
*/
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* ------------------------------------------------------------------ options */

static const cli_opt trie_key_opts[] = {
    { 'k', "key", "HEX", NULL, "the key to prove ('-' or '' for the empty key)", NULL },
    { OPT_FORMAT, "format", "FMT", "mtrp merkledb",
      "mtrp (the default: one binary proof) or merkledb (one hex sync.ProofNode a line)", NULL },
    CLI_OPT_END_ROW,
};

static const cli_opt trie_build_opts[] = {
    { 'b', "branch-factor", "N", "2 4 16 256", "2, 4, 16 (the default, as merkledb) or 256", NULL },
    { 'j', "threads", "N", NULL, "hash with N threads (0 = all cores, the default)", NULL },
    CLI_OPT_HELP_ROW,
    CLI_OPT_END_ROW,
};

static const cli_opt trie_verify_opts[] = {
    { 'r', "root", "ID", NULL, "the trusted root ID: 64 hex digits or cb58", NULL },
    { OPT_FORMAT, "format", "FMT", "mtrp merkledb",
      "mtrp (the default) or merkledb (PROOF: one hex sync.ProofNode a line)", NULL },
    { 'k', "key", "KEY", NULL,
      "the proof must be about KEY (hex, '-' = the empty key; required with merkledb)",
      "Without *--key* an MTRP proof of any key that verifies is OK: the OK line names the key "
      "it is about, which a caller must then compare." },
    { OPT_VALUE, "value", "HEX", NULL,
      "KEY must be present with this value (hex, '-' = empty): an inclusion proof", NULL },
    { OPT_ABSENT, "absent", NULL, NULL, "KEY must be absent: an exclusion proof", NULL },
    { 'b', "branch-factor", "N", "2 4 16 256",
      "merkledb: 2, 4, 16 (the default) or 256; mtrp: the proof must be for this factor", NULL },
    CLI_OPT_HELP_ROW,
    CLI_OPT_END_ROW,
};

#define TRIE_OPS_TEXT                                                                              \
    "FILE (default: standard input; '-' too) holds one operation per line, applied in\n"           \
    "order: 'put KEYHEX VALUEHEX' or 'del KEYHEX'. A lone '-' is an empty key or an\n"             \
    "empty (present) value. Blank lines and '#' comments are ignored.\n"
#define TRIE_BUILD_EXIT "Exit status: 0 success, 1 unreadable or malformed FILE, 2 usage error.\n"

const cli_cmd trie_root_spec = {
    "trie root",
    "print the root ID of the trie the operations build",
    "Usage: merkle trie root [--branch-factor 2|4|16|256] [-j N] [FILE]\n"
    "Print the root ID of a Merkle radix trie with avalanchego merkledb node IDs: lowercase\n"
    "hex, two spaces, cb58.\n" TRIE_OPS_TEXT,
    { trie_build_opts },
    TRIE_BUILD_EXIT,
    0,
};

const cli_cmd trie_prove_spec = {
    "trie prove",
    "write a proof that a key is present, or absent",
    "Usage: merkle trie prove --key HEX [--branch-factor N] [-j N] [FILE]\n"
    "Write a proof (binary, format 'MTRP' v1, see docs/trie.md) that KEY is present with\n"
    "its value, or absent, in the trie FILE builds, to standard output. With --format\n"
    "merkledb: merkledb's proof path instead, one hex line per sync.ProofNode (root first),\n"
    "and FILE may hold 'commit' lines; an empty trie prints\n"
    "'FAILED: proof is empty (merkledb: ErrEmptyProof)' and exits 1.\n" TRIE_OPS_TEXT,
    { trie_key_opts, trie_build_opts },
    TRIE_BUILD_EXIT,
    0,
};

const cli_cmd trie_verify_spec = {
    "trie verify",
    "check a proof against a trusted root ID",
    "Usage: merkle trie verify PROOF --root ID [--key KEY [--value HEX | --absent]]\n"
    "Check PROOF (a file, or - for standard input) against the root ID (64 hex digits or\n"
    "cb58); print 'OK: key HEX present, value HEX', 'OK: key HEX absent' or\n"
    "'FAILED: reason'. --key, --value and --absent bind the claim: a proof of another key,\n"
    "of another value, or of presence when --absent was given, FAILS. Without --key any\n"
    "proof that verifies is OK and the OK line names its key: compare it.\n"
    "With --format merkledb: Proof{Path, Key, Value}.Verify(root, tokenSize(N)) of merkledb;\n"
    "prints 'OK' or 'FAILED: <reason> (merkledb: <Go sentinel name>)'.\n",
    { trie_verify_opts },
    "Exit status: 0 OK, 1 FAILED, 2 usage error or malformed proof.\n",
    0,
};

static void help(void)
{
    printf("Usage: merkle trie root  [--branch-factor 2|4|16|256] [-j N] [FILE]\n"
           "       merkle trie prove --key HEX [--branch-factor N] [-j N] [FILE]\n"
           "       merkle trie verify PROOF --root ID [--key KEY [--value HEX | --absent]]\n"
           "       merkle trie prove-range|prove-change|verify-range|verify-change ...\n"
           "         (avalanchego merkledb proofs: 'merkle trie ACTION --help')\n\n"
           "A Merkle radix trie with avalanchego merkledb node IDs.\n" TRIE_OPS_TEXT "\n"
           "  root     print the root ID: lowercase hex, two spaces, cb58\n"
           "  prove    write a proof (binary, format 'MTRP' v1, see docs/trie.md) that KEY is\n"
           "           present with its value, or absent, to standard output\n"
           "  verify   check PROOF (a file, or - for standard input) against the root ID\n"
           "           (64 hex digits or cb58); prints 'OK: ...' or 'FAILED: reason';\n"
           "           --key/--value/--absent: a proof of anything else FAILS\n\n"
           "Options of prove (and of root, but for --key):\n");
    cli_help_options(&trie_prove_spec, stdout);
    printf("\nOptions of verify:\n");
    cli_help_options(&trie_verify_spec, stdout);
    printf("\nExit status: root/prove: 0 success, 1 unreadable or malformed FILE, 2 usage "
           "error;\nverify: 0 OK, 1 FAILED, 2 usage error or malformed proof.\n");
}

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

/* Apply the operations of FILE to t. Returns CLI_OK or CLI_FAIL (message printed). */
static int apply_ops(merkle_trie *t, const char *name)
{
    size_t len;
    char *buf = read_named(name, &len);
    if (buf == NULL) return CLI_FAIL;
    const char *shown = strcmp(name, "-") == 0 ? "(standard input)" : name;
    /* Any one line needs at most len / 2 bytes of decoded key and value. */
    uint8_t *scratch = malloc(len / 2 + 1);
    int rc = CLI_OK;
    merkle_error e;
    if (scratch == NULL) {
        cli_error("trie: %s: out of memory", shown);
        rc = CLI_FAIL;
    } else if (merkle_trie_apply_text(NULL, t, buf, len, scratch, len / 2 + 1, &e) != MERKLE_OK) {
        cli_error("trie: %s:%llu: %s", shown, (unsigned long long)e.line, e.message);
        rc = CLI_FAIL;
    }
    free(scratch);
    free(buf);
    return rc;
}

static int parse_bf(const char *s, unsigned *bf)
{
    uint64_t v;
    if (cli_parse_u64(s, &v) != 0 || (v != 2 && v != 4 && v != 16 && v != 256)) return -1;
    *bf = (unsigned)v;
    return 0;
}

static int write_all(const void *p, size_t n)
{
    if (n && fwrite(p, 1, n, stdout) != n) return -1;
    return fflush(stdout) == 0 ? 0 : -1;
}

/* Print bytes as hex, or "-" when empty. */
static void print_hex_or_dash(const uint8_t *p, size_t n)
{
    if (n == 0) {
        fputs("-", stdout);
        return;
    }
    char tmp[129];
    while (n) {
        size_t c = n > 64 ? 64 : n;
        merkle_hex_encode(tmp, p, c);
        fputs(tmp, stdout);
        p += c;
        n -= c;
    }
}

/*
** Decode a KEY or value argument: hex with an optional 0x, '-' or '' empty. *out is
** allocated (free it). 0, -1 on bad hex (e says why), -2 out of memory.
*/
static int decode_arg(const char *s, uint8_t **out, size_t *len, merkle_error *e)
{
    s = cli_skip_0x(s);
    size_t n = strlen(s);
    *len = 0;
    *out = malloc(n / 2 + 1);
    if (*out == NULL) return -2;
    if (n == 0 || (n == 1 && s[0] == '-')) return 0;
    return merkle_hex_decode(*out, n / 2 + 1, len, s, n, e) == MERKLE_OK ? 0 : -1;
}

/* What the caller claims a native proof proves (trie verify --key/--value/--absent/-b). */
typedef struct trie_claim {
    const uint8_t *key; /* NULL: any key */
    size_t key_len;
    const uint8_t *value; /* with present 1: this value */
    size_t value_len;
    int present; /* -1 any, 0 absent, 1 present with value */
    unsigned bf; /* 0: any */
} trie_claim;

static void print_hex_field(const char *before, const uint8_t *p, size_t n, const char *after)
{
    fputs(before, stdout);
    print_hex_or_dash(p, n);
    fputs(after, stdout);
}

static int bytes_eq(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    return an == bn && (an == 0 || (a != NULL && b != NULL && memcmp(a, b, an) == 0));
}

/* 1 when info (a verified proof) proves the claim, else 0 after printing the FAILED line. */
static int claim_holds(const trie_claim *c, const merkle_trie_proof_info *info)
{
    if (c->bf && info->branch_factor != c->bf) {
        printf("FAILED: the proof is for branch factor %u, not %u\n", info->branch_factor, c->bf);
        return 0;
    }
    if (c->key && !bytes_eq(info->key, info->key_len, c->key, c->key_len)) {
        print_hex_field("FAILED: the proof is for key ", info->key, info->key_len, ", not ");
        print_hex_field("", c->key, c->key_len, "\n");
        return 0;
    }
    if (c->present == 0 && info->present) {
        print_hex_field("FAILED: key ", info->key, info->key_len, " is present (value ");
        print_hex_field("", info->value, info->value_len, "), not absent\n");
        return 0;
    }
    if (c->present == 1 && !info->present) {
        print_hex_field("FAILED: key ", info->key, info->key_len,
                        " is absent, not present with value ");
        print_hex_field("", c->value, c->value_len, "\n");
        return 0;
    }
    if (c->present == 1 && !bytes_eq(info->value, info->value_len, c->value, c->value_len)) {
        print_hex_field("FAILED: key ", info->key, info->key_len, " has value ");
        print_hex_field("", info->value, info->value_len, ", not ");
        print_hex_field("", c->value, c->value_len, "\n");
        return 0;
    }
    return 1;
}

static int do_verify(const cli_cmd *cmd, const char *proof_name, const char *root_s,
                     const trie_claim *claim)
{
    uint8_t root[MERKLE_TRIE_ID_LEN];
    merkle_error e;
    if (merkle_trie_id_parse(root, root_s, &e) != MERKLE_OK)
        return cli_cmd_usage(cmd, "--root: %s", e.message);
    size_t len;
    char *buf = read_named(proof_name, &len);
    if (buf == NULL) return CLI_USAGE;
    merkle_trie_proof_info info;
    merkle_status st = merkle_trie_proof_verify(&info, root, (const uint8_t *)buf, len, &e);
    int rc;
    if (st == MERKLE_OK && !claim_holds(claim, &info)) {
        rc = CLI_FAIL;
    } else if (st == MERKLE_OK) {
        fputs("OK: key ", stdout);
        print_hex_or_dash(info.key, info.key_len);
        if (info.present) {
            fputs(" present, value ", stdout);
            print_hex_or_dash(info.value, info.value_len);
            fputs("\n", stdout);
        } else {
            fputs(" absent\n", stdout);
        }
        rc = CLI_OK;
    } else if (st == MERKLE_ERR_VERIFY) {
        printf("FAILED: %s\n", e.message);
        rc = CLI_FAIL;
    } else {
        cli_error("trie verify: %s: %s", proof_name, e.message);
        rc = CLI_USAGE;
    }
    free(buf);
    if (fflush(stdout) != 0) {
        cli_error("write error: %s", strerror(errno));
        rc = rc == CLI_OK ? CLI_FAIL : rc;
    }
    return rc;
}

/* The options of a trie action. */
typedef struct trie_args {
    unsigned bf, threads;
    const char *key_s, *root_s, *format_s, *value_s;
    int absent, bf_set;
} trie_args;

/* 0, -1 after --help, or the exit status of a usage error. */
static int trie_parse(const cli_cmd *cmd, int argc, char **argv, trie_args *ta)
{
    cli_parser p;
    cli_parser_init(&p, cmd, argc, argv);
    const char *arg;
    int c, rc;
    while ((c = cli_opt_next(&p, &arg)) != CLI_OPT_END) {
        switch (c) {
        case CLI_OPT_HELP: return -1;
        case CLI_OPT_ERROR: return cli_cmd_usage_rc(cmd);
        case 'b':
            if (parse_bf(arg, &ta->bf) != 0)
                return cli_cmd_usage(cmd, "--branch-factor must be 2, 4, 16 or 256, not '%s'", arg);
            ta->bf_set = 1;
            break;
        case 'k': ta->key_s = arg; break;
        case 'r': ta->root_s = arg; break;
        case OPT_FORMAT:
            if (strcmp(arg, "mtrp") != 0 && strcmp(arg, "merkledb") != 0)
                return cli_cmd_usage(cmd, "--format must be mtrp or merkledb, not '%s'", arg);
            ta->format_s = arg;
            break;
        case OPT_VALUE: ta->value_s = arg; break;
        case OPT_ABSENT: ta->absent = 1; break;
        case 'j':
            if ((rc = cli_parse_jobs(cmd, arg, &ta->threads)) != 0) return rc;
            break;
        default: break;
        }
    }
    return 0;
}

int cmd_trie(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error("trie", "missing action: root, prove, verify, prove-range, "
                                       "prove-change, verify-range or verify-change");
    const char *action = argv[1];
    if (strcmp(action, "-h") == 0 || strcmp(action, "--help") == 0) {
        help();
        return CLI_OK;
    }
    int is_root = strcmp(action, "root") == 0, is_prove = strcmp(action, "prove") == 0,
        is_verify = strcmp(action, "verify") == 0;
    if (strcmp(action, "prove-range") == 0 || strcmp(action, "prove-change") == 0 ||
        strcmp(action, "verify-range") == 0 || strcmp(action, "verify-change") == 0)
        return cmd_trie_mdb(argc - 1, argv + 1);
    if (!is_root && !is_prove && !is_verify)
        return cli_usage_error("trie",
                               "unknown action '%s' (root, prove, verify, prove-range, "
                               "prove-change, verify-range or verify-change)",
                               action);
    const cli_cmd *cmd = is_root    ? &trie_root_spec
                         : is_prove ? &trie_prove_spec
                                    : &trie_verify_spec;
    trie_args ta = {
        16, 0, NULL, NULL, NULL, NULL, 0, 0
    }; /* threads 0: all cores, as every command's -j */
    int sub_argc = argc - 1;
    char **sub_argv = argv + 1;
    int prc = trie_parse(cmd, sub_argc, sub_argv, &ta);
    if (prc) return prc < 0 ? CLI_OK : prc;
    const char *key_s = ta.key_s, *root_s = ta.root_s;
    unsigned bf = ta.bf, threads = ta.threads;
    int npos = sub_argc - optind;
    int mdb = ta.format_s != NULL && strcmp(ta.format_s, "merkledb") == 0;
    if (is_verify) {
        if (npos != 1) return cli_cmd_usage(cmd, "expected exactly one PROOF file");
        if (mdb)
            return trie_mdb_verify_key(cmd, sub_argv[optind], root_s, key_s, ta.value_s, ta.absent,
                                       bf);
        if (root_s == NULL) return cli_cmd_usage(cmd, "--root ID is required");
        if (ta.value_s && ta.absent)
            return cli_cmd_usage(cmd, "--value and --absent contradict each other");
        if ((ta.value_s || ta.absent) && key_s == NULL)
            return cli_cmd_usage(cmd, "--%s needs --key KEY", ta.absent ? "absent" : "value");
        trie_claim claim = {
            NULL, 0, NULL, 0, ta.absent ? 0 : ta.value_s ? 1 : -1, ta.bf_set ? bf : 0
        };
        uint8_t *kb = NULL, *vb = NULL;
        merkle_error e;
        int d = 0, vrc;
        if (key_s && (d = decode_arg(key_s, &kb, &claim.key_len, &e)) == 0) claim.key = kb;
        if (d == -1) {
            vrc = cli_cmd_usage(cmd, "--key: %s", e.message);
        } else if (d == 0 && ta.value_s &&
                   (d = decode_arg(ta.value_s, &vb, &claim.value_len, &e)) == -1) {
            vrc = cli_cmd_usage(cmd, "--value: %s", e.message);
        } else if (d == -2) {
            cli_error("out of memory");
            vrc = CLI_FAIL;
        } else {
            claim.value = vb;
            vrc = do_verify(cmd, sub_argv[optind], root_s, &claim);
        }
        free(kb);
        free(vb);
        return vrc;
    }
    if (npos > 1) return cli_cmd_usage(cmd, "at most one FILE");
    const char *file = npos == 1 ? sub_argv[optind] : "-";
    uint8_t *key = NULL;
    size_t key_len = 0;
    if (is_prove) {
        if (key_s == NULL) return cli_cmd_usage(cmd, "--key HEX is required");
        merkle_error e;
        int d = decode_arg(key_s, &key, &key_len, &e);
        if (d == -2) {
            cli_error("out of memory");
            return CLI_FAIL;
        }
        if (d != 0) {
            free(key);
            return cli_cmd_usage(cmd, "--key: %s", e.message);
        }
    }
    if (mdb) {
        int r = trie_mdb_prove_key(file, bf, key, key_len);
        free(key);
        return r;
    }
    merkle_trie *t;
    if (merkle_trie_alloc(&t, bf) != MERKLE_OK) {
        free(key);
        cli_error("out of memory");
        return CLI_FAIL;
    }
    int rc = apply_ops(t, file);
    uint8_t root[MERKLE_TRIE_ID_LEN];
    merkle_error e;
    if (threads == 0) threads = cli_num_cpus();
    if (rc == CLI_OK && merkle_trie_root(root, t, threads, &e) != MERKLE_OK) {
        cli_error("trie: %s", e.message);
        rc = CLI_FAIL;
    }
    if (rc == CLI_OK && is_root) {
        char hex[2 * MERKLE_TRIE_ID_LEN + 1], s[MERKLE_TRIE_CB58_ID_MAX];
        size_t sl;
        merkle_hex_encode(hex, root, sizeof root);
        (void)merkle_trie_cb58_encode(s, sizeof s, &sl, root, sizeof root);
        printf("%s  %s\n", hex, s);
        if (fflush(stdout) != 0) {
            cli_error("write error: %s", strerror(errno));
            rc = CLI_FAIL;
        }
    } else if (rc == CLI_OK) {
        size_t need;
        merkle_status st = merkle_trie_prove(NULL, 0, &need, t, key, key_len, &e);
        uint8_t *p = st == MERKLE_ERR_BUFFER ? malloc(need) : NULL;
        if (p == NULL || merkle_trie_prove(p, need, &need, t, key, key_len, &e) != MERKLE_OK) {
            cli_error("trie prove: %s", p == NULL ? "out of memory" : e.message);
            rc = CLI_FAIL;
        } else if (write_all(p, need) != 0) {
            cli_error("write error: %s", strerror(errno));
            rc = CLI_FAIL;
        }
        free(p);
    }
    merkle_trie_free(t);
    free(key);
    return rc;
}
