/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle trie root  [--branch-factor 2|4|16|256] [-j N] [FILE]
** merkle trie prove --key HEX [--branch-factor N] [-j N] [FILE]
** merkle trie verify PROOF --root HEX
**
** FILE (or standard input) holds operations, one per line: "put KEYHEX VALUEHEX" or
** "del KEYHEX"; a lone "-" is the empty key or the empty (present) value; blank lines and
** '#' comments are ignored.
*/
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static void help(void)
{
    printf("Usage: merkle trie root  [--branch-factor 2|4|16|256] [-j N] [FILE]\n"
           "       merkle trie prove --key HEX [--branch-factor N] [-j N] [FILE]\n"
           "       merkle trie verify PROOF --root ID\n\n"
           "A Merkle radix trie with avalanchego merkledb node IDs.\n"
           "FILE (default: standard input; '-' too) holds one operation per line, applied in\n"
           "order: 'put KEYHEX VALUEHEX' or 'del KEYHEX'. A lone '-' is an empty key or an\n"
           "empty (present) value. Blank lines and '#' comments are ignored.\n\n"
           "  root     print the root ID: lowercase hex, two spaces, cb58\n"
           "  prove    write a proof (binary, format 'MTRP' v1, see docs/trie.md) that KEY is\n"
           "           present with its value, or absent, to standard output\n"
           "  verify   check PROOF (a file, or - for standard input) against the root ID\n"
           "           (64 hex digits or cb58); prints 'OK: ...' or 'FAILED: reason'\n\n"
           "  -b, --branch-factor N  2, 4, 16 (default) or 256\n"
           "  -k, --key HEX          the key to prove ('-' or '' for the empty key)\n"
           "  -r, --root ID          the trusted root ID for verify\n"
           "  -j, --threads N        hash with N threads (0 = all cores, the default)\n"
           "  -h, --help             this help\n\n"
           "Exit status: root/prove: 0 success, 1 unreadable or malformed FILE, 2 usage error;\n"
           "verify: 0 OK, 1 FAILED, 2 usage error or malformed proof.\n");
}

/* Read all of fd into a malloc'd buffer (NUL-terminated). NULL on error (errno set). */
static char *slurp(int fd, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (buf == NULL) return NULL;
    for (;;) {
        if (cap - n < 2) {
            char *nb = realloc(buf, cap * 2);
            if (nb == NULL) {
                free(buf);
                errno = ENOMEM;
                return NULL;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - n - 1);
        if (r < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            free(buf);
            errno = e;
            return NULL;
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

static char *read_named(const char *name, size_t *len)
{
    int fd = cli_open_input(name);
    if (fd < 0) {
        cli_error("trie: %s: %s", name, strerror(errno));
        return NULL;
    }
    char *buf = slurp(fd, len);
    int e = errno;
    if (fd != 0) close(fd);
    if (buf == NULL) cli_error("trie: %s: %s", name, strerror(e));
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

static int do_verify(const char *sub, const char *proof_name, const char *root_s)
{
    uint8_t root[MERKLE_TRIE_ID_LEN];
    merkle_error e;
    if (merkle_trie_id_parse(root, root_s, &e) != MERKLE_OK)
        return cli_usage_error(sub, "--root: %s", e.message);
    size_t len;
    char *buf = read_named(proof_name, &len);
    if (buf == NULL) return CLI_USAGE;
    merkle_trie_proof_info info;
    merkle_status st = merkle_trie_proof_verify(&info, root, (const uint8_t *)buf, len, &e);
    int rc;
    if (st == MERKLE_OK) {
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

int cmd_trie(int argc, char **argv)
{
    if (argc < 2) return cli_usage_error("trie", "missing action: root, prove or verify");
    const char *action = argv[1];
    if (strcmp(action, "-h") == 0 || strcmp(action, "--help") == 0) {
        help();
        return CLI_OK;
    }
    int is_root = strcmp(action, "root") == 0, is_prove = strcmp(action, "prove") == 0,
        is_verify = strcmp(action, "verify") == 0;
    if (!is_root && !is_prove && !is_verify)
        return cli_usage_error("trie", "unknown action '%s' (root, prove or verify)", action);
    char sub[16];
    snprintf(sub, sizeof sub, "trie %s", action);
    static const struct option longopts[] = {{"branch-factor", required_argument, NULL, 'b'},
                                             {"key", required_argument, NULL, 'k'},
                                             {"root", required_argument, NULL, 'r'},
                                             {"threads", required_argument, NULL, 'j'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    unsigned bf = 16, threads = 0; /* 0: all cores, as every command's -j */
    const char *key_s = NULL, *root_s = NULL;
    int sub_argc = argc - 1;
    char **sub_argv = argv + 1;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(sub_argc, sub_argv, ":b:k:r:j:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'b':
            if (is_verify) return cli_usage_error(sub, "--branch-factor is not used by verify");
            if (parse_bf(optarg, &bf) != 0)
                return cli_usage_error(sub, "--branch-factor must be 2, 4, 16 or 256, not '%s'",
                                       optarg);
            break;
        case 'k':
            if (!is_prove) return cli_usage_error(sub, "--key is only for prove");
            key_s = optarg;
            break;
        case 'r':
            if (!is_verify) return cli_usage_error(sub, "--root is only for verify");
            root_s = optarg;
            break;
        case 'j':
            if (is_verify) return cli_usage_error(sub, "--threads is not used by verify");
            if (cli_parse_jobs(sub, optarg, &threads) != 0) return CLI_USAGE;
            break;
        case 'h':
            help();
            return CLI_OK;
        case ':':
            return cli_usage_error(sub, "option '%s' needs an argument", sub_argv[optind - 1]);
        default:
            return cli_usage_error(sub, "unknown option '%s'", sub_argv[optind - 1]);
        }
    }
    int npos = sub_argc - optind;
    if (is_verify) {
        if (npos != 1) return cli_usage_error(sub, "expected exactly one PROOF file");
        if (root_s == NULL) return cli_usage_error(sub, "--root ID is required");
        return do_verify(sub, sub_argv[optind], root_s);
    }
    if (npos > 1) return cli_usage_error(sub, "at most one FILE");
    const char *file = npos == 1 ? sub_argv[optind] : "-";
    uint8_t *key = NULL;
    size_t key_len = 0;
    if (is_prove) {
        if (key_s == NULL) return cli_usage_error(sub, "--key HEX is required");
        size_t kl = strlen(key_s);
        if (!(kl == 1 && key_s[0] == '-')) {
            key = malloc(kl / 2 + 1);
            merkle_error e;
            if (key == NULL) {
                cli_error("out of memory");
                return CLI_FAIL;
            }
            if (merkle_hex_decode(key, kl / 2 + 1, &key_len, key_s, kl, &e) != MERKLE_OK) {
                free(key);
                return cli_usage_error(sub, "--key: %s", e.message);
            }
        }
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
        char hex[2 * MERKLE_TRIE_ID_LEN + 1], s[MERKLE_CB58_ID_MAX];
        size_t sl;
        merkle_hex_encode(hex, root, sizeof root);
        (void)merkle_cb58_encode(s, sizeof s, &sl, root, sizeof root);
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
