/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** What the manifest commands share (cli/manifest_util.c; mcli_quotef in manifest_quote.c):
** cmd_sum.c, cmd_check.c, cmd_cat.c, cmd_audit.c and cmd_dirroot.c.
*/
#ifndef MERKLE_MANIFEST_UTIL_H
#define MERKLE_MANIFEST_UTIL_H

#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "merkle/manifest.h"

/* Write s quoted as coreutils' quotef() does (C locale). */
void mcli_quotef(FILE *f, const char *s);

/* "merkle SUB VERSION" (--version of sum and check). */
void mcli_print_version(const char *sub);
/* As in coreutils, the last of --quiet, --status and --warn wins (opt: the one just seen). */
void mcli_last_wins(int opt, int *quiet, int *status, int *warn);
/* -a ALGO: 0, or the command's usage status after the message. */
int mcli_parse_alg(const cli_cmd *cmd, const char *arg, merkle_hash_alg *alg);
/* -l/--length BITS as b2sum parses it (its messages, exit 1 from sum and check). 0 or the
** exit status. 0 bits means the algorithm's full length. */
int mcli_parse_bits(const cli_cmd *cmd, const char *arg, uint64_t *bits);
/* "merkle: QUOTED: message" (coreutils error(0, errno, "%s", quotef(name))). */
void mcli_err_name(const char *name, const char *msg);
/* The message of a listed file's sys_errno (check, audit): strerror, but "not a regular file"
** for the EINVAL the library gives a FIFO, device or socket it refused unread. */
const char *mcli_list_errstr(int sys_errno);
/* Print name as coreutils' print_filename: with escape, '\\' and '\n' (and '\r') become
** two-character escapes; the caller has printed the leading backslash. */
void mcli_put_name(FILE *f, const char *name, int escape);

/* The progress line of sum and check. */
typedef struct prog_ctx {
    cli_progress p;
    uint64_t files_base, bytes_base; /* windows of a long manifest already checked */
} prog_ctx;
/* The library's progress callback (ctx: a prog_ctx). */
void mcli_on_progress(void *ctx, uint64_t files, uint64_t bytes);
/* Sum of the sizes of names (for the progress line only: costs a stat per file). */
uint64_t mcli_total_size(int dirfd, const char *const *names, size_t n);

/*
** Lines printed in list order, each as soon as its entry and every earlier one are done
** (`sum` and `check`): the library's result callback marks entries done (serialised by the
** library); the longest finished prefix is printed through print(self, i). The lines go out
** at once on a terminal, at most five times a second into a pipe or file (a write per line
** would cost a system call per file on a check of many small files); a line is never held
** back more than about 200 ms (a flusher thread: the next file may never end).
*/
typedef struct in_order {
    uint8_t *done;
    size_t next, n;
    int tty;
    int64_t last_flush_ns;
    cli_progress *prog; /* erased before lines are printed (redrawn by its next update) */
    void (*print)(void *self, size_t i);
    void *self;
} in_order;
/* Print the longest finished prefix (flushing as described above). */
void mcli_in_order_release(in_order *o);
/* Stop the thread that flushes lines left in stdout's buffer for more than 200 ms (started by
** mcli_in_order_release when needed); before the command's last fflush. */
void mcli_flusher_stop(void);
/* The library's result callback (ctx: an in_order): marks entry index done. */
void mcli_in_order_on_result(void *ctx, size_t index, const merkle_check_result *r);

/* A parsed manifest (merkle_manifest is opaque) and the parts of it the commands read. */
typedef struct mlist {
    merkle_manifest *h;
    const merkle_manifest_entry *entries;
    size_t count;
    const uint64_t *bad_lines;
    size_t bad_count;
    uint64_t lines;
} mlist;

/* Parse text into *l (merkle_manifest_parse_alloc). */
merkle_status mcli_list_parse(mlist *l, merkle_manifest_parser *p, const char *text, size_t len,
                              uint64_t first_line, merkle_error *err);
void mcli_list_free(mlist *l);
/* Load a manifest file for cat/audit/dirroot; 0 or CLI_* exit code. Malformed lines are
** errors. */
int mcli_load_manifest(const char *sub, const char *path, merkle_hash_alg alg, mlist *m);

#endif
