/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle dirroot [-a ALGO] [--leaves] MANIFEST: the Merkle root of a manifest's sorted
** entries (src/manifest/), or its leaves in hex.
*/
#include <stdio.h>

#include "cli.h"
#include "manifest_util.h"

/* Bytes p[0..n) in lowercase hex, a bounded piece at a time. */
static void put_hex(FILE *out, const uint8_t *p, size_t n)
{
    char hex[2 * 1024 + 1];
    while (n) {
        size_t k = n < 1024 ? n : 1024;
        merkle_hex_encode(hex, p, k);
        fwrite(hex, 1, 2 * k, out);
        p += k;
        n -= k;
    }
}

/* One leaf (merkle_manifest_leaf_encode's bytes: u32be name length, name, algorithm, digest
** length, digest) as a hex line. */
static void put_leaf_hex(FILE *out, const merkle_manifest_entry *e)
{
    uint8_t len[4] = { (uint8_t)(e->name_len >> 24), (uint8_t)(e->name_len >> 16),
                       (uint8_t)(e->name_len >> 8), (uint8_t)e->name_len };
    uint8_t tag[2] = { (uint8_t)e->alg, (uint8_t)e->digest_len };
    put_hex(out, len, sizeof len);
    put_hex(out, (const uint8_t *)e->name, e->name_len);
    put_hex(out, tag, sizeof tag);
    put_hex(out, e->digest, e->digest_len);
    putc('\n', out);
}

int cmd_dirroot(int argc, char **argv)
{
    const cli_cmd *cmd = &dirroot_spec;
    const char *sub = cmd->name, *arg;
    merkle_hash_alg alg = MERKLE_HASH_AUTO;
    int leaves = 0;
    cli_parser p;
    cli_parser_init(&p, cmd, argc, argv);
    int c, prc;
    while ((c = cli_opt_next(&p, &arg)) != CLI_OPT_END) {
        switch (c) {
        case CLI_OPT_HELP: return CLI_OK;
        case CLI_OPT_ERROR: return cli_cmd_usage_rc(cmd);
        case 'a':
            if ((prc = mcli_parse_alg(cmd, arg, &alg)) != 0) return prc;
            break;
        case OPT_LEAVES: leaves = 1; break;
        default: break;
        }
    }
    if (argc - optind != 1) return cli_cmd_usage(cmd, "expected one MANIFEST");
    mlist m;
    int rc = mcli_load_manifest(sub, argv[optind], alg, &m);
    if (rc) return rc == CLI_USAGE ? CLI_FAIL : rc;
    uint8_t root[MERKLE_HASH_LEN];
    merkle_error err;
    if (merkle_manifest_dirroot(root, m.h, &err) != MERKLE_OK) {
        cli_error("%s: %s", argv[optind], err.message);
        mcli_list_free(&m);
        return CLI_FAIL;
    }
    if (leaves) {
        /* Each leaf in hex straight from its entry, in pieces through a fixed buffer: no
        ** allocation, so no leaf can be dropped for want of memory (a long name included). */
        for (size_t i = 0; i < m.count; i++) put_leaf_hex(stdout, &m.entries[i]);
    } else {
        char hex[2 * MERKLE_HASH_LEN + 1];
        merkle_hex_encode(hex, root, sizeof root);
        puts(hex);
    }
    mcli_list_free(&m);
    return CLI_OK;
}
