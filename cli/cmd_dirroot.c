/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle dirroot [-a ALGO] [--leaves] MANIFEST: the Merkle root of a manifest's sorted
** entries (src/manifest/), or its leaves in hex.
*/
#include <stdlib.h>

#include "cli.h"
#include "manifest_util.h"

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
        uint8_t buf[4 + 4096 + 2 + 64];
        for (size_t i = 0; i < m.count; i++) {
            size_t need;
            merkle_manifest_leaf_encode(NULL, 0, &need, &m.entries[i]);
            uint8_t *b = need <= sizeof buf ? buf : malloc(need);
            if (!b) continue;
            merkle_manifest_leaf_encode(b, need, &need, &m.entries[i]);
            char *hex = malloc(2 * need + 1);
            if (hex) {
                merkle_hex_encode(hex, b, need);
                puts(hex);
                free(hex);
            }
            if (b != buf) free(b);
        }
    } else {
        char hex[2 * MERKLE_HASH_LEN + 1];
        merkle_hex_encode(hex, root, sizeof root);
        puts(hex);
    }
    mcli_list_free(&m);
    return CLI_OK;
}
