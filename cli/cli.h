/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Internal interface of the merkle command-line tool. No hashing logic lives in cli/:
** subcommands parse arguments, call the library, and format output.
*/
#ifndef MERKLE_CLI_H
#define MERKLE_CLI_H

/* MinGW: the C99 printf of __USE_MINGW_ANSI_STDIO (%zu), not msvcrt's. */
#ifndef CLI_PRINTF_FORMAT
#if defined(__MINGW32__)
#define CLI_PRINTF_FORMAT gnu_printf
#else
#define CLI_PRINTF_FORMAT printf
#endif
#endif

#include <stdint.h>
#include <stdio.h>

#include "merkle/merkle.h"
#include "opts.h"

/* Exit codes shared by all subcommands. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* Subcommands: argv[0] is the subcommand name. Return the process exit status. */
int cmd_root(int argc, char **argv);
int cmd_proof(int argc, char **argv);
int cmd_consistency(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_clvm(int argc, char **argv);
int cmd_trie(int argc, char **argv);
int cmd_sum(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_dirroot(int argc, char **argv);
int cmd_cat(int argc, char **argv);
int cmd_compact(int argc, char **argv);

/* The option tables of each command and subcommand (opts.h): parsing, --help, merkle(1) and
** the completions come from these. */
extern const cli_cmd root_spec, proof_spec, consistency_spec, verify_spec;
extern const cli_cmd sum_spec, check_spec, audit_spec, dirroot_spec, cat_spec;
extern const cli_cmd trie_root_spec, trie_prove_spec, trie_verify_spec;
extern const cli_cmd trie_prove_range_spec, trie_prove_change_spec, trie_verify_range_spec,
    trie_verify_change_spec;
/* cli/cmd_trie_mdb.c: merkledb proofs (argv[0] is the action). */
int cmd_trie_mdb(int argc, char **argv);
int trie_mdb_prove_key(const char *file, unsigned bf, const uint8_t *key, size_t key_len);
int trie_mdb_verify_key(const cli_cmd *cmd, const char *proof_name, const char *root_s,
                        const char *key_s, const char *value_s, int absent, unsigned bf);
extern const cli_cmd clvm_hash_spec, clvm_serialize_spec;
extern const cli_cmd compact_append_spec, compact_merge_spec, compact_root_spec, compact_show_spec;

/* Program name for messages ("merkle"). */
extern const char *cli_progname;

/* "merkle: <message>\n" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(CLI_PRINTF_FORMAT, 1, 2)));
/* "merkle <sub>: <message>\nTry 'merkle <sub> --help'.\n" on stderr; returns CLI_USAGE.
** Commands with a cli_cmd use cli_cmd_usage (opts.h), which returns that command's status. */
int cli_usage_error(const char *sub, const char *fmt, ...)
    __attribute__((format(CLI_PRINTF_FORMAT, 2, 3)));

/* Parse a positive size with an optional K/M/G (binary) suffix. 0 on success, -1 if bad
** (including zero and overflow). */
int cli_parse_size(const char *s, uint64_t *out);
/* Parse a non-negative decimal integer without sign; 0 on success, -1 if bad. */
int cli_parse_u64(const char *s, uint64_t *out);

/* -j/--threads N of every command: 0..1024, 0 (the default everywhere) = one per online CPU.
** 0 and *out, or the command's usage status after printing the usage error
** ("merkle SUB: -j needs ..."). */
int cli_parse_jobs(const cli_cmd *cmd, const char *arg, unsigned *out);

/*
** The one whole-file reader: all of the named input ("-" = standard input) into a
** malloc'd buffer with a NUL after the last byte (*len excludes it). A regular file is
** read into one buffer of its size. At most max bytes: more is EFBIG. Returns 0, or an
** errno (ENOMEM, EFBIG, or open/read's); nothing is printed (cli_read_error does).
*/
int cli_read_file(const char *name, size_t max, char **out, size_t *len);
/* The same for an open descriptor (not closed). */
int cli_read_fd(int fd, size_t max, char **out, size_t *len);
/*
** The one positional reader: exactly len bytes of fd at offset into buf (pread, EINTR
** retried, short reads continued). 0; an errno (EIO when pread failed without one); or -1
** when the file ended first (it shrank). Safe from any thread.
*/
int cli_pread_full(int fd, void *buf, size_t len, uint64_t offset);
/*
** Write data[0..len) as the new file name, durably and never over a file: a temporary beside
** it, fsync, put in place without replacing (renameat2 RENAME_NOREPLACE, else link), fsync
** the directory. 0, or -1 after a message (what = the option, for "WHAT never writes over a
** file"); nothing is left behind on failure, the file is absent.
*/
int cli_write_new_file(const char *name, const void *data, size_t len, const char *what);
/* fsync the directory that holds name (EINVAL/EROFS, no such sync there, count as done).
** 0 or an errno. */
int cli_fsync_parent(const char *name);
/* "merkle: [WHAT: ]NAME: <strerror>" or, for EFBIG, "...: larger than MAX bytes" (when max
** is above cli_input_max(): "larger than the N-byte limit for an input file (...)"). */
void cli_read_error(const char *what, const char *name, int err, size_t max);

/*
** The ceiling of every whole-file read of the CLI and of each line of a list read line by
** line (docs/io.md, "Size limits"): lists of leaves and --values rows, --load dumps, trie
** operation files, audit and dirroot manifests, a line of a check manifest. 1 GiB, or the
** environment's MERKLE_INPUT_MAX (digits, optionally followed by K, M, G or T: powers of
** 1024; anything else, 0 included, is said once on stderr and the default stands; a value
** above SIZE_MAX / 2 is said and taken as SIZE_MAX / 2). cli_read_file/cli_read_fd never
** read more than this (plus the one byte that shows the input is longer), whatever max they
** are given: data files read whole (verify --leaf FILE, proof --all FILE) included.
*/
#define CLI_INPUT_MAX_DEFAULT ((size_t)1 << 30)
size_t cli_input_max(void);
/* 2 when text[0..n) starts with 0x or 0X (the prefix Ethereum and Chia tools print before
** hex), else 0. */
size_t cli_0x_prefix(const char *text, size_t n);
/* s without a leading 0x or 0X (NULL stays NULL). */
const char *cli_skip_0x(const char *s);
/* "merkle: NAME: larger than the N-byte limit for WHAT (MERKLE_INPUT_MAX raises it)" for
** EFBIG (max: the limit that applied), else "merkle: NAME: <strerror>". */
void cli_read_limit_error(const char *name, int err, size_t max, const char *what);

/*
** Print "<digest>  <name>\n" (sha256sum style; " *" instead of "  " when binary_flag),
** escaping a name containing '\\', '\n' or '\r' the way coreutils does: the line starts
** with '\\' and those characters become "\\\\", "\\n", "\\r". With zero_term, no escaping
** and the record ends with '\0'.
*/
/* --0x (merkle root, proof, consistency, clvm hash): hashes are printed with a 0x prefix,
** in digest lines (cli_print_digest_line) and in JSON documents (cli_json_0x). */
extern int cli_hex_0x;
/* A copy of the JSON text in[0..len) (malloc'd, *out_len bytes, no NUL added) in which every
** string value that is non-empty even-length hex gets a 0x prefix -- keys and other strings
** (names such as "sha256", "inclusion") stay as they are. NULL when out of memory. */
char *cli_json_0x(const char *in, size_t len, size_t *out_len);
void cli_print_digest_line(FILE *out, const char *hex, const char *name, int binary_flag,
                           int zero_term);
/* Append name escaped as above to out; returns 1 if escaping was needed. */
int cli_name_needs_escape(const char *name);
void cli_fputs_escaped(FILE *out, const char *name);

/* Open a named input: "-" is standard input. Returns a file descriptor or -1 (errno set). */
int cli_open_input(const char *name);
/* Number of online CPUs (>= 1). */
unsigned cli_num_cpus(void);

/* Progress line on stderr for long jobs: shown only when stderr is a terminal, not
** quiet, and the job has run for more than about a second. */
typedef struct cli_progress {
    int enabled;
    uint64_t total_bytes; /* 0 if unknown */
    uint64_t total_items; /* 0 if not counted */
    uint64_t start_ns, last_ns;
    int shown;
} cli_progress;
void cli_progress_start(cli_progress *p, int quiet, uint64_t total_bytes, uint64_t total_items);
void cli_progress_update(cli_progress *p, uint64_t bytes_done, uint64_t items_done);
void cli_progress_end(cli_progress *p);
uint64_t cli_now_ns(void);

#endif
