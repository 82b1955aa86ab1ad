/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The option tables at work: getopt_long parsing, --help, and the `merkle __options` dump
** from which tools/gen_cli_docs.py writes merkle(1)'s option lists and the completions.
*/
#include <stdarg.h>
#include <string.h>

#include "cli.h"

int cli_cmd_usage_rc(const cli_cmd *cmd)
{
    return cmd->usage_rc ? cmd->usage_rc : CLI_USAGE;
}

int cli_cmd_usage(const cli_cmd *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fflush(stdout);
    fprintf(stderr, "%s %s: ", cli_progname, cmd->name);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry '%s %s --help' for more information.\n", cli_progname, cmd->name);
    va_end(ap);
    return cli_cmd_usage_rc(cmd);
}

static int is_heading(const cli_opt *o)
{
    return o->id == 0 && o->help != NULL;
}

static int has_short(const cli_opt *o)
{
    return o->id > 0 && o->id < 256;
}

/* ------------------------------------------------------------------ parsing */

void cli_parser_init(cli_parser *p, const cli_cmd *cmd, int argc, char **argv)
{
    memset(p, 0, sizeof *p);
    p->cmd = cmd;
    p->argc = argc;
    p->argv = argv;
    snprintf(p->prog, sizeof p->prog, "%s %s", cli_progname, cmd->name);
    /* ':' first: a missing argument returns ':' (messages are ours, cli_opt_error). */
    size_t n = 0, s = 0;
    p->shorts[s++] = ':';
    for (int g = 0; g < CLI_MAX_GROUPS && cmd->groups[g]; g++) {
        for (const cli_opt *o = cmd->groups[g]; o->id || o->help; o++) {
            if (is_heading(o)) continue;
            if (n < CLI_MAX_OPTS && o->lng) {
                p->lo[n].name = o->lng;
                p->lo[n].has_arg = o->arg ? required_argument : no_argument;
                p->lo[n].flag = NULL;
                p->lo[n].val = o->id;
                n++;
            }
            if (has_short(o) && s + 2 < sizeof p->shorts) {
                p->shorts[s++] = (char)o->id;
                if (o->arg) p->shorts[s++] = ':';
            }
        }
    }
    /* Tables are static: a table larger than the arrays is a programming error that the
    ** cli_options test (every option of the dump is accepted) would show. */
#ifdef __GLIBC__
    optind = 0; /* full re-initialisation (a command may parse twice: sum -c runs check) */
#else
    optind = 1;
#endif
    opterr = 0;
}

/* The name of a long option as written ("--name" or "--name=value"), up to the '='. */
static int long_name_len(const char *a)
{
    const char *eq = strchr(a, '=');
    return (int)(eq ? (size_t)(eq - a) : strlen(a));
}

/* getopt's errors worded as glibc's getopt_long (and so coreutils) words them, whatever the C
** library: musl, MinGW and BSD libcs word theirs differently, and scripts match this text. */
/* 1 when argument a ("--name[=v]") names the long option whose value is val. */
static int names_long(const cli_parser *p, const char *a, int val)
{
    size_t len = (size_t)long_name_len(a) - 2;
    for (size_t i = 0; i < CLI_MAX_OPTS && p->lo[i].name; i++)
        if (p->lo[i].val == val && strlen(p->lo[i].name) >= len &&
            strncmp(p->lo[i].name, a + 2, len) == 0)
            return 1;
    return 0;
}

static void opt_error(const cli_parser *p, int c)
{
    /* The argument getopt stopped at; for a short option inside a cluster it may be the one
    ** before, hence the check that a long option there is really the one at fault. */
    const char *a = optind > 0 && optind <= p->argc ? p->argv[optind - 1] : "";
    int is_long = a && a[0] == '-' && a[1] == '-' && (optopt == 0 || names_long(p, a, optopt)) &&
                  (c == ':' || optopt == 0 || strchr(a, '='));
    if (c == ':') {
        if (is_long)
            fprintf(stderr, "%s: option '%.*s' requires an argument\n", p->prog, long_name_len(a),
                    a);
        else
            fprintf(stderr, "%s: option requires an argument -- '%c'\n", p->prog, optopt);
        return;
    }
    if (!is_long) {
        fprintf(stderr, "%s: invalid option -- '%c'\n", p->prog, optopt);
        return;
    }
    if (optopt != 0) { /* a known long option given "=value" it does not take */
        fprintf(stderr, "%s: option '%.*s' doesn't allow an argument\n", p->prog, long_name_len(a),
                a);
        return;
    }
    /* Unknown, or an abbreviation of several: glibc lists the candidates. */
    const char *name = a + 2;
    size_t len = (size_t)long_name_len(a) - 2, hits = 0;
    for (size_t i = 0; i < CLI_MAX_OPTS && p->lo[i].name; i++)
        if (len && strncmp(p->lo[i].name, name, len) == 0) hits++;
    if (hits > 1) {
        fprintf(stderr, "%s: option '%.*s' is ambiguous; possibilities:", p->prog, long_name_len(a),
                a);
        for (size_t i = 0; i < CLI_MAX_OPTS && p->lo[i].name; i++)
            if (strncmp(p->lo[i].name, name, len) == 0) fprintf(stderr, " '--%s'", p->lo[i].name);
        fputc('\n', stderr);
        return;
    }
    fprintf(stderr, "%s: unrecognized option '%s'\n", p->prog, a);
}

int cli_opt_next(cli_parser *p, const char **arg)
{
    fflush(stdout);
    int c = getopt_long(p->argc, p->argv, p->shorts, p->lo, NULL);
    *arg = optarg;
    if (c == -1) return CLI_OPT_END;
    if (c == '?' || c == ':') {
        opt_error(p, c);
        fprintf(stderr, "Try '%s --help' for more information.\n", p->prog);
        return CLI_OPT_ERROR;
    }
    if (c == 'h') {
        cli_help(p->cmd, stdout);
        return CLI_OPT_HELP;
    }
    return c;
}

/* ------------------------------------------------------------------ --help */

#define HELP_COLS 79
#define HEAD_MAX  24

static size_t head_text(char *buf, size_t cap, const cli_opt *o, int any_short)
{
    int n;
    if (has_short(o) && o->lng)
        n = snprintf(buf, cap, "  -%c, --%s%s%s", o->id, o->lng, o->arg ? " " : "",
                     o->arg ? o->arg : "");
    else if (has_short(o))
        n = snprintf(buf, cap, "  -%c%s%s", o->id, o->arg ? " " : "", o->arg ? o->arg : "");
    else
        n = snprintf(buf, cap, "%s--%s%s%s", any_short ? "      " : "  ", o->lng, o->arg ? " " : "",
                     o->arg ? o->arg : "");
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

/* Print text wrapped at HELP_COLS, continuation lines indented by indent; the first line
** starts at column col. */
static void put_wrapped(FILE *out, const char *text, size_t col, size_t indent)
{
    const char *p = text;
    while (*p) {
        while (*p == ' ') p++;
        size_t avail = HELP_COLS > col ? HELP_COLS - col : 20;
        size_t len = strlen(p);
        size_t take = len;
        if (len > avail) {
            take = avail;
            while (take > 0 && p[take] != ' ') take--;
            if (take == 0) { /* a word longer than the line */
                take = strcspn(p, " ");
            }
        }
        fprintf(out, "%.*s\n", (int)take, p);
        p += take;
        while (*p == ' ') p++;
        if (*p) {
            fprintf(out, "%*s", (int)indent, "");
            col = indent;
        }
    }
}

void cli_help(const cli_cmd *cmd, FILE *out)
{
    fputs(cmd->usage, out);
    fputs("\nOptions:\n", out);
    cli_help_options(cmd, out);
    if (cmd->epilog) {
        fputc('\n', out);
        fputs(cmd->epilog, out);
    }
}

void cli_help_options(const cli_cmd *cmd, FILE *out)
{
    int any_short = 0;
    size_t width = 0;
    char head[96];
    for (int g = 0; g < CLI_MAX_GROUPS && cmd->groups[g]; g++) {
        for (const cli_opt *o = cmd->groups[g]; o->id || o->help; o++) {
            if (has_short(o)) any_short = 1;
        }
    }
    for (int g = 0; g < CLI_MAX_GROUPS && cmd->groups[g]; g++) {
        for (const cli_opt *o = cmd->groups[g]; o->id || o->help; o++) {
            if (is_heading(o) || !o->help) continue;
            size_t w = head_text(head, sizeof head, o, any_short);
            if (w <= HEAD_MAX && w > width) width = w;
        }
    }
    size_t col = width + 2;
    for (int g = 0; g < CLI_MAX_GROUPS && cmd->groups[g]; g++) {
        for (const cli_opt *o = cmd->groups[g]; o->id || o->help; o++) {
            if (!o->help) continue;
            if (is_heading(o)) {
                fprintf(out, "\n%s\n", o->help);
                continue;
            }
            size_t w = head_text(head, sizeof head, o, any_short);
            fputs(head, out);
            if (w + 2 > col) {
                fprintf(out, "\n%*s", (int)col, "");
            } else {
                fprintf(out, "%*s", (int)(col - w), "");
            }
            put_wrapped(out, o->help, col, col);
        }
    }
}

/* ------------------------------------------------------------------ merkle __options */

/* Table text must not hold tabs or newlines (the dump is one row per line). */
static int field(FILE *out, const char *s, int last)
{
    if (s && strpbrk(s, "\t\n")) {
        cli_error("__options: tab or newline in option text '%s'", s);
        return -1;
    }
    fputs(s ? s : "", out);
    fputc(last ? '\n' : '\t', out);
    return 0;
}

static int dump_spec(const cli_cmd *c, const char *summary, const cli_opt **seen, size_t *nseen,
                     FILE *out)
{
    int rc = 0;
    fprintf(out, "spec\t");
    rc |= field(out, c->name, 0);
    rc |= field(out, summary, 1);
    for (int g = 0; g < CLI_MAX_GROUPS && c->groups[g]; g++) {
        size_t id = 0;
        while (id < *nseen && seen[id] != c->groups[g]) id++;
        if (id == *nseen && *nseen < 64) seen[(*nseen)++] = c->groups[g];
        for (const cli_opt *o = c->groups[g]; o->id || o->help; o++) {
            char sh[2] = { has_short(o) ? (char)o->id : 0, 0 };
            if (is_heading(o)) {
                fprintf(out, "heading\t%s\tg%zu\t", c->name, id);
                rc |= field(out, o->help, 1);
                continue;
            }
            fprintf(out, "opt\t%s\tg%zu\t", c->name, id);
            rc |= field(out, sh, 0);
            rc |= field(out, o->lng, 0);
            rc |= field(out, o->arg, 0);
            rc |= field(out, o->values, 0);
            rc |= field(out, o->help, 0);
            rc |= field(out, o->more, 1);
        }
    }
    return rc;
}

int cli_dump_options(const cli_command_entry *cmds, size_t n, FILE *out)
{
    const cli_opt *seen[64];
    size_t nseen = 0;
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "command\t");
        rc |= field(out, cmds[i].name, 0);
        rc |= field(out, cmds[i].summary, 1);
        for (const cli_cmd *const *s = cmds[i].specs; s && *s; s++)
            rc |= dump_spec(*s,
                            strcmp((*s)->name, cmds[i].name) == 0 ? cmds[i].summary : (*s)->summary,
                            seen, &nseen, out);
    }
    if (fflush(out) != 0) rc = -1;
    return rc ? CLI_FAIL : CLI_OK;
}
