/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle cat -m MANIFEST [-a ALGO] FILE...: the files' bytes, each verified against the
** manifest before any of it is written.
*/
#include <stdlib.h>

#include "cli.h"
#include "manifest_util.h"

int cmd_cat(int argc, char **argv)
{
    const cli_cmd *cmd = &cat_spec;
    const char *sub = cmd->name, *mpath = NULL, *arg;
    merkle_hash_alg alg = MERKLE_HASH_AUTO;
    cli_parser p;
    cli_parser_init(&p, cmd, argc, argv);
    int c, prc;
    while ((c = cli_opt_next(&p, &arg)) != CLI_OPT_END) {
        switch (c) {
        case CLI_OPT_HELP: return CLI_OK;
        case CLI_OPT_ERROR: return cli_cmd_usage_rc(cmd);
        case 'm': mpath = arg; break;
        case 'a':
            if ((prc = mcli_parse_alg(cmd, arg, &alg)) != 0) return prc;
            break;
        default: break;
        }
    }
    if (!mpath) return cli_cmd_usage(cmd, "-m MANIFEST is required");
    if (optind >= argc) return cli_cmd_usage(cmd, "no FILE given");
    mlist m;
    if (mcli_load_manifest(sub, mpath, alg, &m) != 0) return CLI_FAIL;
    merkle_vreader *r;
    merkle_error err;
    if (merkle_vreader_alloc(&r, m.h, NULL, 0, &err) != MERKLE_OK) {
        mcli_list_free(&m);
        cli_error("%s: %s", mpath, err.message);
        return CLI_FAIL;
    }
    mcli_list_free(&m);
    size_t n = (size_t)(argc - optind);
    merkle_vbuf **bufs = calloc(n, sizeof *bufs);
    const uint8_t **data = calloc(n, sizeof *data);
    size_t *lens = calloc(n, sizeof *lens);
    int rc = CLI_OK;
    if (!bufs || !data || !lens) {
        cli_error("out of memory");
        rc = CLI_FAIL;
    }
    for (size_t i = 0; i < n && rc == CLI_OK; i++) {
        const char *name = argv[optind + (int)i];
        merkle_status s = merkle_vreader_read(&data[i], &lens[i], &bufs[i], NULL, r, name, &err);
        if (s != MERKLE_OK) {
            fprintf(stderr, "%s cat: %s\n", cli_progname, err.message);
            rc = CLI_FAIL;
        }
    }
    for (size_t i = 0; i < n && rc == CLI_OK; i++) {
        if (lens[i] && fwrite(data[i], 1, lens[i], stdout) != lens[i]) rc = CLI_FAIL;
    }
    if (rc == CLI_OK && (fflush(stdout) != 0 || ferror(stdout))) {
        cli_error("write error");
        rc = CLI_FAIL;
    }
    for (size_t i = 0; bufs && i < n; i++) merkle_vbuf_free(bufs[i]);
    free(bufs);
    free(data);
    free(lens);
    merkle_vreader_free(r);
    return rc;
}
