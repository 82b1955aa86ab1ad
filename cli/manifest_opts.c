/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The options of sum, check, audit, dirroot and cat (opts.h): parsed in cmd_sum.c,
** cmd_check.c, cmd_audit.c, cmd_dirroot.c and cmd_cat.c, shown by --help, merkle(1) and the
** completions.
*/
#include "cli.h"

/* Output options of check, which sum -c passes on. */
static const cli_opt check_mode_opts[] = {
    { OPT_QUIET, "quiet", NULL, NULL, "do not print OK for each verified file", NULL },
    { OPT_STATUS, "status", NULL, NULL, "print nothing on stdout; the exit status tells", NULL },
    { OPT_STRICT, "strict", NULL, NULL, "exit non-zero for improperly formatted lines", NULL },
    { 'w', "warn", NULL, NULL, "warn about improperly formatted lines", NULL },
    { OPT_IGNORE_MISSING, "ignore-missing", NULL, NULL, "do not fail or report for missing files",
      NULL },
    CLI_OPT_END_ROW,
};

static const cli_opt sum_opts[] = {
    { 'a', "algorithm", "ALGO", CLI_VALUES_MANIFEST_ALG,
      "md5 (the default), sha1, sha256, sha512 or blake2b", NULL },
    { 'l', "length", "BITS", NULL,
      "digest length for blake2b: a multiple of 8, at most 512 (as b2sum -l)", NULL },
    { OPT_TAG, "tag", NULL, NULL, "BSD-style lines: ALGO (NAME) = HEX", NULL },
    { 'z', "zero", NULL, NULL, "end each line with NUL instead of newline, do not escape names",
      NULL },
    { 'b', "binary", NULL, NULL, "mark files as binary ('*' before the name)", NULL },
    { 't', "text", NULL, NULL, "mark files as text (the default)", NULL },
    { 'j', "threads", "N", NULL, "hashing threads (0 = all cores, the default)", NULL },
    { 'c', "check", NULL, NULL,
      "read checksum lists from the FILEs and check them, as md5sum -c (the same as merkle "
      "check -a ALGO, md5 unless -a says otherwise)",
      NULL },
    { OPT_VERSION, "version", NULL, NULL, "print the version and exit", NULL },
    CLI_OPT_HELP_ROW,
    CLI_OPT_END_ROW,
};

static const cli_opt sum_check_heading[] = {
    { 0, NULL, NULL, NULL, "With --check, as in merkle check:", NULL },
    CLI_OPT_END_ROW,
};

const cli_cmd sum_spec = {
    "sum",
    NULL,
    "Usage: merkle sum [-a md5|sha1|sha256|sha512|blake2b] [-l BITS] [--tag] [-z] [-b|-t]\n"
    "                  [-j N] [FILE]...\n"
    "Print checksums as md5sum/sha1sum/sha256sum/sha512sum/b2sum do (default md5).\n"
    "With no FILE, or when FILE is -, read standard input.\n",
    { sum_opts, sum_check_heading, check_mode_opts },
    "Exit status: 0 all files read, 1 some file could not be read or a usage error\n"
    "(as md5sum).\n",
    CLI_FAIL,
};

static const cli_opt check_opts[] = {
    { 'a', "algorithm", "ALGO", CLI_VALUES_MANIFEST_ALG,
      "md5, sha1, sha256, sha512 or blake2b; default: detected per manifest from its first "
      "valid line (a BSD tag, or a hex length of 32 md5, 40 sha1, 64 sha256, 128 sha512 -- or "
      "BLAKE2b-512 when the first file matches that and not SHA-512, said once on stderr)",
      NULL },
    { 'l', "length", "BITS", NULL,
      "with -a blake2b: the digest length the lines must have (b2sum -l BITS -c); default any",
      NULL },
    { OPT_CACHE, "cache", "FILE", CLI_VALUES_FILE,
      "validation cache: skip files unchanged since they verified OK",
      "A file unchanged (device, inode, size, mtime, ctime) since it verified OK with the same "
      "digest is not read again. A file whose mtime or ctime is not strictly older than the "
      "moment it was recorded, counted from the start of the timestamp tick (1 or 2 seconds on "
      "coarse file systems), is always re-hashed. _FILE_ must be absent or a merkle cache: a "
      "manifest, any other file, a directory, device, FIFO, socket or symbolic link (never "
      "followed) is refused with exit 2 before anything is checked, and left untouched. Saves "
      "are atomic (a temporary in the same directory, fsync, rename), keep the mode and owner "
      "of the cache they replace, and merge under an *flock* what concurrent runs saved. A "
      "cache owned by another user vouches only for files the caller can read. See "
      "docs/manifest.md." },
    { OPT_CACHE_KEY, "cache-key", "FILE", CLI_VALUES_FILE,
      "authenticate cache entries with HMAC-SHA-256 under the key in FILE (16 bytes to 1 MiB)",
      "Entries without a valid tag are ignored." },
    CLI_OPT_END_ROW,
};

static const cli_opt check_run_opts[] = {
    { 'j', "threads", "N", NULL, "hashing threads (0 = all cores, the default)",
      "A progress line appears on a terminal (never with *--quiet* or *--status*)." },
    { OPT_MPI, "mpi", NULL, NULL,
      "run under mpirun: files spread over the ranks by size (only in a binary built with "
      "MERKLE_MPI; see docs/SCALING.md)",
      NULL },
    { OPT_VERSION, "version", NULL, NULL, "print the version and exit", NULL },
    { 'c', "check", NULL, NULL, NULL, NULL }, /* accepted (md5sum -c habits), not shown */
    CLI_OPT_HELP_ROW,
    CLI_OPT_END_ROW,
};

const cli_cmd check_spec = {
    "check",
    NULL,
    "Usage: merkle check [-a ALGO] [-l BITS] [--cache FILE] [--cache-key FILE] [--quiet]\n"
    "                    [--status] [--strict] [-w] [--ignore-missing] [-j N] [MANIFEST]...\n"
    "Check files against checksum lists (GNU or BSD-tag lines), as md5sum -c does.\n"
    "With no MANIFEST, or when MANIFEST is -, read standard input.\n",
    { check_opts, check_mode_opts, check_run_opts },
    "Exit status: 0 every listed file verified; 1 otherwise or a usage error (as\n"
    "md5sum -c); 2 a --cache or --cache-key that cannot be used (nothing checked).\n",
    CLI_FAIL,
};

static const cli_opt audit_opts[] = {
    { 'a', "algorithm", "ALGO", CLI_VALUES_MANIFEST_ALG,
      "as for merkle check (default: detected per line)", NULL },
    { 'j', "threads", "N", NULL, "hashing threads (0 = all cores, the default)", NULL },
    CLI_OPT_HELP_ROW,
    CLI_OPT_END_ROW,
};

const cli_cmd audit_spec = {
    "audit",
    NULL,
    "Usage: merkle audit [-a ALGO] [-j N] MANIFEST DIR\n"
    "Compare DIR with MANIFEST (names relative to DIR): report on stdout\n"
    "  changed: NAME        listed, present, digest differs\n"
    "  missing: NAME        listed, not present\n"
    "  moved: NAME -> NEW   listed, not present; NEW (not listed) has its digest\n"
    "  new: NAME            a regular file under DIR that is not listed\n"
    "and a summary on stderr. Unreadable files are reported on stderr.\n",
    { audit_opts },
    "Exit status: 0 clean, 1 differences found, 2 usage or I/O error.\n",
    0,
};

static const cli_opt dirroot_opts[] = {
    { 'a', "algorithm", "ALGO", CLI_VALUES_MANIFEST_ALG,
      "as for merkle check (default: detected per line)", NULL },
    { OPT_LEAVES, "leaves", NULL, NULL,
      "print the leaves instead of the root: in hex, one per line in canonical order (the input "
      "of merkle root --leaves and merkle proof --leaves)",
      NULL },
    CLI_OPT_HELP_ROW,
    CLI_OPT_END_ROW,
};

const cli_cmd dirroot_spec = {
    "dirroot",
    NULL,
    "Usage: merkle dirroot [-a ALGO] [--leaves] MANIFEST\n"
    "Print one RFC 6962 SHA-256 root over the manifest's entries, sorted by name bytes,\n"
    "each leaf = u32be(name length) || name || u8 algorithm || u8 digest length || digest\n"
    "(see docs/manifest.md).\n",
    { dirroot_opts },
    "Exit status: 0 printed, 1 bad manifest (malformed line, duplicate name), 2 usage.\n",
    0,
};

static const cli_opt cat_opts[] = {
    { 'm', "manifest", "FILE", CLI_VALUES_FILE,
      "the checksum list (md5sum/sha*sum/b2sum format, or BSD tags); required", NULL },
    { 'a', "algorithm", "ALGO", CLI_VALUES_MANIFEST_ALG,
      "md5, sha1, sha256, sha512 or blake2b (default: from the lines)", NULL },
    CLI_OPT_HELP_ROW,
    CLI_OPT_END_ROW,
};

const cli_cmd cat_spec = {
    "cat",
    NULL,
    "Usage: merkle cat -m MANIFEST [-a ALGO] FILE...\n"
    "Write the FILEs to standard output, each only after its bytes verified against\n"
    "MANIFEST (read once, hashed, then written: the bytes written are the bytes that\n"
    "were checked). Every FILE is verified before anything is written: on a mismatch\n"
    "or a read error nothing is written at all. FILE is named as in the manifest.\n"
    "Only regular files are read (a device or FIFO is refused); each is held in memory\n"
    "between its verification and its output.\n",
    { cat_opts },
    "Exit status: 0 all written, 1 a file did not verify or could not be read, 2 usage.\n",
    0,
};
