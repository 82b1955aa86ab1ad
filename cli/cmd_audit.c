/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle audit [-a ALGO] [-j N] MANIFEST DIR: what changed in DIR since MANIFEST (changed,
** missing, moved, new, unreadable), as hashdeep's audit mode reports it.
*/
#include <string.h>

#include "cli.h"
#include "manifest_util.h"

/* "WHAT: NAME" or, with to, "WHAT: NAME -> TO": when a name holds '\\', LF or CR, the line
** starts with '\\' and both names are escaped (as in sum output). */
static void audit_line(const char *what, const char *name, const char *to)
{
    int esc = strpbrk(name, "\\\n\r") != NULL || (to && strpbrk(to, "\\\n\r") != NULL);
    if (esc) putchar('\\');
    fputs(what, stdout);
    fputs(": ", stdout);
    mcli_put_name(stdout, name, esc);
    if (to) {
        fputs(" -> ", stdout);
        mcli_put_name(stdout, to, esc);
    }
    putchar('\n');
}

typedef struct audit_ctx {
    const char *dir;
    cli_progress p;
} audit_ctx;

static void audit_event(void *ctx, const merkle_audit_event *ev)
{
    const audit_ctx *a = ctx;
    switch (ev->kind) {
    case MERKLE_AUDIT_CHANGED: audit_line("changed", ev->name, NULL); break;
    case MERKLE_AUDIT_MISSING: audit_line("missing", ev->name, NULL); break;
    case MERKLE_AUDIT_MOVED: audit_line("moved", ev->name, ev->to); break;
    case MERKLE_AUDIT_NEW: audit_line("new", ev->name, NULL); break;
    case MERKLE_AUDIT_UNREADABLE:
        fflush(stdout);
        mcli_err_name(ev->name, mcli_list_errstr(ev->sys_errno));
        break;
    case MERKLE_AUDIT_WALK_ERROR: mcli_err_name(a->dir, strerror(ev->sys_errno)); break;
    }
}

static void audit_stage(void *ctx, merkle_audit_stage stage, uint64_t files)
{
    audit_ctx *a = ctx;
    cli_progress_end(&a->p);
    if (stage != MERKLE_AUDIT_STAGE_REPORT) cli_progress_start(&a->p, 0, 0, files);
}

static void audit_progress(void *ctx, uint64_t files, uint64_t bytes)
{
    audit_ctx *a = ctx;
    cli_progress_update(&a->p, bytes, files);
}

int cmd_audit(int argc, char **argv)
{
    const cli_cmd *cmd = &audit_spec;
    const char *sub = cmd->name, *arg;
    merkle_hash_alg alg = MERKLE_HASH_AUTO;
    unsigned threads = 0;
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
        case 'j':
            if ((prc = cli_parse_jobs(cmd, arg, &threads)) != 0) return prc;
            break;
        default: break;
        }
    }
    if (argc - optind != 2) return cli_cmd_usage(cmd, "expected MANIFEST DIR");
    const char *mpath = argv[optind], *dir = argv[optind + 1];
    mlist m;
    int rc = mcli_load_manifest(sub, mpath, alg, &m);
    if (rc) return rc;
    merkle_audit_opts o;
    merkle_audit_opts_init(&o, MERKLE_AUDIT_OPTS_VERSION);
    merkle_file_id skip;
    if (strcmp(mpath, "-") != 0 && merkle_file_id_of(&skip, mpath, NULL) == MERKLE_OK)
        o.skip = &skip;
    audit_ctx ac = { dir, { 0 } };
    cli_progress_start(&ac.p, 0, 0, m.count); /* is there a terminal to show progress on? */
    o.threads = threads;
    o.on_event = audit_event;
    o.event_ctx = &ac;
    if (ac.p.enabled) {
        o.on_stage = audit_stage;
        o.progress = audit_progress;
        o.progress_ctx = &ac;
    }
    merkle_audit_counts n;
    merkle_error err;
    merkle_status s = merkle_manifest_audit(&n, m.h, dir, &o, &err);
    cli_progress_end(&ac.p);
    mcli_list_free(&m);
    if (s == MERKLE_ERR_IO) {
        mcli_err_name(dir, strerror(err.sys_errno));
        return CLI_USAGE;
    }
    if (s != MERKLE_OK) {
        cli_error("%s", s == MERKLE_ERR_NOMEM ? "out of memory" : err.message);
        return CLI_USAGE;
    }
    fflush(stdout);
    fprintf(stderr,
            "%s audit: %llu ok, %llu changed, %llu missing, %llu moved, %llu new, "
            "%llu unreadable\n",
            cli_progname, (unsigned long long)n.ok, (unsigned long long)n.changed,
            (unsigned long long)n.missing, (unsigned long long)n.moved,
            (unsigned long long)n.new_files, (unsigned long long)n.unreadable);
    if (n.walk_errors || n.unreadable) return CLI_USAGE;
    return (n.changed || n.missing || n.moved || n.new_files) ? CLI_FAIL : CLI_OK;
}
