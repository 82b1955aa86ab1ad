/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle/manifest.h: checksum manifests (md5sum/sha*sum/b2sum lists), checking a directory
** against one with many files in flight, a validation cache keyed by file identity and stat,
** verified reads, and a directory root (one RFC 6962 root over a manifest).
**
** Formats (GNU coreutils):
**   GNU line   HEX  NAME   or   HEX *NAME   (binary flag); a name containing '\\', LF or CR is
**              written escaped ("\\\\", "\\n", "\\r") and the line starts with '\\'.
**   BSD tag    ALGO (NAME) = HEX   with ALGO one of MD5, SHA1, SHA256, SHA512, BLAKE2b,
**              BLAKE2b-BITS (BITS a multiple of 8, 8..512; plain BLAKE2b means 512).
** Parsing follows coreutils' `-c` rules exactly (see docs/manifest.md); a line that does not
** parse is reported with its 1-based line number and never half-accepted.
**
** Thread safety: everything here is reentrant; a merkle_vcache and a merkle_vreader may be
** shared by threads (internally locked) unless a comment says otherwise.
*/
#ifndef MERKLE_MANIFEST_H
#define MERKLE_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "merkle/common.h"
#include "merkle/hash.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Checksum lists use merkle_hash_alg (hash.h): MERKLE_HASH_MD5, SHA1, SHA256, SHA512 and
** BLAKE2B (any length 1..64 bytes), and MERKLE_HASH_AUTO where parsing may detect. Names and
** default lengths: merkle_hash_alg_name, merkle_hash_alg_len. */

/* Parse a checksum-list digest name: "md5", "sha1", "sha256", "sha512", "blake2b"
** (case-insensitive). MERKLE_ERR_ARG otherwise. */
MERKLE_API merkle_status merkle_manifest_alg_from_name(merkle_hash_alg *out, const char *name);

/* One parsed manifest line. `name` points into the caller's line buffer (parse_line) or
** into the merkle_manifest that owns it; it is NUL-terminated (a name never holds a NUL). */
typedef struct merkle_manifest_entry {
    const char *name;
    size_t name_len;
    uint64_t line;       /* 1-based line number in the manifest */
    merkle_hash_alg alg; /* never AUTO */
    uint32_t digest_len; /* bytes */
    uint8_t digest[MERKLE_MAX_DIGEST_LEN];
    uint8_t binary; /* GNU line with '*' before the name */
    uint8_t bsd;    /* BSD tag line */
} merkle_manifest_entry;

/*
** Parser state carried from line to line (and from manifest to manifest, as coreutils
** does): the algorithm to accept and whether "HEX NAME" (one space, `md5 -r` style) lines
** have been seen. Initialise with merkle_manifest_parser_init.
*/
typedef struct merkle_manifest_parser {
    merkle_hash_alg alg; /* AUTO: detect (BSD tag name; GNU: from the hex length) */
    uint32_t digest_len; /* BLAKE2b: required length in bytes, 0 = any (b2sum -c) */
    int bsd_reversed;    /* -1 unknown, 0 no, 1 yes (coreutils' state) */
    int reject_dash;     /* the manifest is read from stdin: a name "-" is malformed */
} merkle_manifest_parser;

/* alg may be AUTO. digest_len: 0, or for BLAKE2b the bytes to require. */
MERKLE_API void merkle_manifest_parser_init(merkle_manifest_parser *p, merkle_hash_alg alg,
                                            uint32_t digest_len);

/*
** Parse one manifest line, line[0..len) without its line terminator (a trailing CR is
** removed here, as coreutils does); line[len] must be writable (a NUL is stored there or
** earlier). The line is modified in place (the name is unescaped)
** and out->name points into it. Comment lines (first byte '#') and empty lines give
** MERKLE_OK with out->name == NULL. A line that is not a valid checksum line gives
** MERKLE_ERR_FORMAT (err->line = line_no). out->line is set to line_no.
** With p->alg AUTO, a BSD line names its algorithm and a GNU line's hex length decides:
** 32 md5, 40 sha1, 64 sha256, 128 sha512; other lengths are malformed.
*/
MERKLE_API merkle_status merkle_manifest_parse_line(merkle_manifest_entry *out,
                                                    merkle_manifest_parser *p, char *line,
                                                    size_t len, uint64_t line_no,
                                                    merkle_error *err);

/* Formatting flags of merkle_manifest_format_line (its uint32_t flags). */
typedef enum merkle_manifest_format_flag {
    MERKLE_MANIFEST_TAG = 1,    /* BSD tag line (coreutils --tag) */
    MERKLE_MANIFEST_BINARY = 2, /* GNU line with '*' (coreutils -b) */
    MERKLE_MANIFEST_ZERO = 4    /* end with NUL instead of LF, never escape (coreutils -z) */
} merkle_manifest_format_flag;

/*
** Write one checksum line exactly as md5sum/sha1sum/sha256sum/sha512sum/b2sum print it
** (terminator included) into out[0..cap). *out_len receives the length in every case; when
** cap is too small nothing is written and MERKLE_ERR_BUFFER is returned. No NUL is appended.
** Errors: MERKLE_ERR_ARG (bad alg/length, NULL, unknown flag bits).
*/
MERKLE_API merkle_status merkle_manifest_format_line(char *out, size_t cap, size_t *out_len,
                                                     merkle_hash_alg alg, const uint8_t *digest,
                                                     size_t digest_len, const char *name,
                                                     uint32_t flags);

/*
** A whole parsed manifest (opaque). ALLOCATES: free with merkle_manifest_free. Malformed
** lines are recorded (merkle_manifest_bad_lines, 1-based) and skipped; the order of entries
** is the file order.
*/
typedef struct merkle_manifest merkle_manifest;

/*
** Parse text[0..len) (lines separated by LF) with parser state p (updated) into a new
** manifest *out. first_line is the number of text's first line (1 for a whole manifest; a
** later window of a long manifest passes the lines before it + 1). Returns MERKLE_OK even
** when some lines are malformed (see merkle_manifest_bad_lines); MERKLE_ERR_NOMEM,
** MERKLE_ERR_ARG. On failure *out is NULL.
*/
MERKLE_API merkle_status merkle_manifest_parse_alloc(merkle_manifest **out,
                                                     merkle_manifest_parser *p, const void *text,
                                                     size_t len, uint64_t first_line,
                                                     merkle_error *err);
/* Release a manifest (NULL is a no-op). */
MERKLE_API void merkle_manifest_free(merkle_manifest *m);

/* Number of entries, and the entries themselves (an array of that many, in file order; or
** in name order after merkle_manifest_sort). Valid until the manifest is freed or sorted. */
MERKLE_API size_t merkle_manifest_count(const merkle_manifest *m);
MERKLE_API const merkle_manifest_entry *merkle_manifest_entries(const merkle_manifest *m);
/* Line numbers (1-based, ascending) of the malformed lines; *count receives how many (may be
** NULL when only the pointer is wanted). */
MERKLE_API const uint64_t *merkle_manifest_bad_lines(const merkle_manifest *m, size_t *count);
/* Number of lines read (a last line without LF counts). */
MERKLE_API uint64_t merkle_manifest_lines(const merkle_manifest *m);

/* ------------------------------------------------------------------ file digests */

/*
** Digest of the whole file at path (symbolic links followed), read to EOF through a 64 KiB
** stack buffer. *size receives the bytes hashed (may be NULL). Errors: MERKLE_ERR_IO
** (err->sys_errno: the open or read failed), MERKLE_ERR_ARG (bad algorithm or length, NULL).
*/
MERKLE_API merkle_status merkle_manifest_digest_file(uint8_t *out, merkle_hash_alg alg,
                                                     size_t digest_len, const char *path,
                                                     uint64_t *size, merkle_error *err);

/* One-shot digest of a buffer. MERKLE_ERR_ARG for a bad algorithm or length. */
MERKLE_API merkle_status merkle_manifest_digest(uint8_t *out, merkle_hash_alg alg,
                                                size_t digest_len, const void *data, size_t len);

/* ------------------------------------------------------------------ validation cache */

typedef struct merkle_vcache merkle_vcache;

/*
** Create an empty validation cache (ALLOCATES; merkle_vcache_free). key/key_len: optional
** HMAC-SHA-256 key (NULL/0 for none); with a key every entry written carries an HMAC and
** entries loaded that do not carry a valid one are ignored.
*/
MERKLE_API merkle_status merkle_vcache_alloc(merkle_vcache **out, const uint8_t *key,
                                             size_t key_len);
MERKLE_API void merkle_vcache_free(merkle_vcache *c);

/*
** Load entries from a cache file. A missing file is MERKLE_OK with *loaded = 0 (may be NULL).
** A path that is not a cache -- a symbolic link (never followed), a directory, device, FIFO
** or socket, a regular file without the cache magic and a version this build reads (a
** manifest, an empty file), a cache of a newer format -- is MERKLE_ERR_UNSAFE: load nothing
** and do not save to it (merkle_vcache_save refuses it too). A cache that is truncated or
** corrupt (right magic) loads nothing and returns MERKLE_ERR_FORMAT (treat it as a warning:
** check everything; a save replaces it). Entries whose HMAC fails (with a key) are dropped
** and counted in *rejected (may be NULL). Also probes the file system's clock in the cache's
** directory (docs/manifest.md, "Racy timestamps"). A process running as root (euid 0) with
** no key does not trust a cache file owned by another user or writable by group or others
** (anyone who can write it can forge entries): MERKLE_ERR_VERIFY, nothing loaded (treat it
** as a warning), and merkle_vcache_save leaves that file alone.
*/
MERKLE_API merkle_status merkle_vcache_load(size_t *loaded, size_t *rejected, merkle_vcache *c,
                                            const char *path, merkle_error *err);

/*
** Write the cache, atomically and durably, when something changed since PATH was loaded or
** saved: flock on the existing cache, merge of the entries another process saved since
** (this process's records and forgets win for their names), an O_TMPFILE in the same
** directory with the old file's mode and owner, fsync, a unique temporary name, rename over
** PATH (or link when there is no file yet), fsync of the directory. Only ever writes over
** nothing or a cache (see merkle_vcache_load): MERKLE_ERR_UNSAFE otherwise. Errors:
** MERKLE_ERR_IO (err->sys_errno; EPERM when the old file's owner cannot be kept); the old
** file is then left untouched, except after a failed fsync of the directory (also
** MERKLE_ERR_IO: the new cache is in place but not known to be durable, and stays dirty so
** that a later save writes it again). A file root does not trust (see merkle_vcache_load) is never
** written over: MERKLE_OK without writing when it is the file the load refused, else
** MERKLE_ERR_UNSAFE.
*/
MERKLE_API merkle_status merkle_vcache_save(merkle_vcache *c, const char *path, merkle_error *err);

/* Number of entries. */
MERKLE_API size_t merkle_vcache_count(const merkle_vcache *c);

/* The identity and stat facts of a file that the cache compares, filled by the library
** (merkle_file_id_of) in the same way on every platform: no struct stat in the API. */
typedef struct merkle_file_id {
    uint64_t dev;               /* device (POSIX st_dev) or volume serial number */
    uint64_t ino_hi;            /* high 64 bits of the file number (128-bit file IDs); 0 on POSIX */
    uint64_t ino_lo;            /* low 64 bits of the file number (POSIX st_ino) */
    uint64_t size;              /* bytes */
    int64_t mtime_ns, ctime_ns; /* last modification and status change, ns since 1970 */
    uint32_t regular;           /* 1 for a regular file, 0 for anything else */
} merkle_file_id;

/* Fill *out from the file at path (symbolic links followed), exactly as the cache and the
** checker do. Errors: MERKLE_ERR_IO (err->sys_errno), MERKLE_ERR_ARG (NULL). */
MERKLE_API merkle_status merkle_file_id_of(merkle_file_id *out, const char *path,
                                           merkle_error *err);

/*
** 1 when name is cached with exactly this identity and stat, algorithm and digest equal to
** expected[0..len), and mtime and ctime strictly older than the moment the entry was
** recorded (floored to the timestamp granularity the stamps show); and, for a cache file of
** another user, when the caller can read name (relative to the current directory); 0
** otherwise. Thread-safe.
*/
MERKLE_API int merkle_vcache_lookup(merkle_vcache *c, const char *name, const merkle_file_id *id,
                                    merkle_hash_alg alg, const uint8_t *expected, size_t len);

/*
** Record that name with identity id hashed to digest (call only for files that verified
** OK). verified_ns: CLOCK_REALTIME_COARSE taken before the file was opened. Replaces an
** older entry for name. Thread-safe. MERKLE_ERR_NOMEM; MERKLE_ERR_ARG for an empty name (the
** file format has none), one over 4,095 bytes (longer than any a check can open), or a bad
** algorithm or length.
*/
MERKLE_API merkle_status merkle_vcache_record(merkle_vcache *c, const char *name,
                                              const merkle_file_id *id, merkle_hash_alg alg,
                                              const uint8_t *digest, size_t len,
                                              int64_t verified_ns);

/* Forget name (a file that failed). Thread-safe. */
MERKLE_API void merkle_vcache_forget(merkle_vcache *c, const char *name);

/* Coarse real-time clock in ns, the clock file systems stamp mtime/ctime with. */
MERKLE_API int64_t merkle_vcache_now(void);

/* ------------------------------------------------------------------ checking */

typedef enum merkle_check_status {
    MERKLE_CHECK_OK = 0,       /* digest matched */
    MERKLE_CHECK_MISMATCH = 1, /* digest did not match */
    MERKLE_CHECK_MISSING = 2,  /* could not open: ENOENT */
    MERKLE_CHECK_ERROR = 3     /* open or read failed (sys_errno) */
} merkle_check_status;

typedef struct merkle_check_result {
    merkle_check_status status;
    int sys_errno;
    uint8_t from_cache; /* OK without reading, thanks to the validation cache */
    uint64_t size;      /* bytes hashed (0 from the cache or on error) */
    uint8_t digest[MERKLE_MAX_DIGEST_LEN];
} merkle_check_result;

/* Progress callback: called from worker threads, serialised by the library. bytes_done also
** counts the bytes read so far inside files that are not finished (a few MiB at a time). */
typedef void (*merkle_check_progress_fn)(void *ctx, uint64_t files_done, uint64_t bytes_done);

/* Result callback: called once per entry, as soon as results[index] is final (from worker
** threads or the calling thread, serialised with each other and with progress callbacks), so
** that a caller can print results in list order while later files are still being read.
** Entries are taken roughly in list order (a window of a few dozen files per thread). */
typedef void (*merkle_check_result_fn)(void *ctx, size_t index, const merkle_check_result *result);

/* The layout version of merkle_check_opts this header describes (docs/library.md, "API
** grammar"): a later release that adds fields raises it and still accepts older versions. */
#define MERKLE_CHECK_OPTS_VERSION 1

typedef struct merkle_check_opts {
    uint32_t version;     /* MERKLE_CHECK_OPTS_VERSION, set by merkle_check_opts_init */
    const char *dir;      /* names are relative to this directory (NULL: the current one) */
    unsigned threads;     /* 0 = one per online CPU */
    merkle_vcache *cache; /* optional: skip unchanged verified files, record new OKs */
    int dash_is_stdin;    /* a name "-" means standard input (coreutils) */
    merkle_check_progress_fn progress;
    void *progress_ctx;
    merkle_check_result_fn on_result; /* optional, see merkle_check_result_fn */
    void *result_ctx;
} merkle_check_opts;

/* Static initialiser with the defaults. */
#define MERKLE_CHECK_OPTS_INIT                                                                     \
    {                                                                                              \
        MERKLE_CHECK_OPTS_VERSION, 0, 0, 0, 0, 0, 0, 0, 0                                          \
    }

/* Defaults for `version` (pass MERKLE_CHECK_OPTS_VERSION): everything zero (dir NULL: the
** current directory), o->version = version. MERKLE_ERR_ARG for a NULL o or a version this library
*does not know
** (0, or newer than it). The check functions refuse options of an unknown version the same way. */
MERKLE_API merkle_status merkle_check_opts_init(merkle_check_opts *o, uint32_t version);

/*
** Check n entries: results[i] for entries[i] (caller-allocated). MD5 files go through the
** multi-buffer engine (16 files in flight per thread where the CPU has AVX-512); other
** algorithms through OpenSSL / the digest layer. Per-file failures are results, not
** errors. Only regular files are read: every file is opened with O_NONBLOCK and fstat'ed
** first, and a name that is not a regular file (FIFO, device, directory, socket) gives
** MERKLE_CHECK_ERROR with sys_errno EISDIR (a directory) or EINVAL (the others), unread.
** Errors: MERKLE_ERR_ARG, MERKLE_ERR_NOMEM (thread start-up failure falls back to fewer
** threads).
*/
MERKLE_API merkle_status merkle_manifest_check(merkle_check_result *results,
                                               const merkle_manifest_entry *entries, size_t n,
                                               const merkle_check_opts *opts, merkle_error *err);

/*
** Digest n named files (results[i].digest, status OK, MISSING or ERROR) with threads.
** Used by `merkle sum`. Same options; opts->cache is ignored. A FIFO or device is read (as
** md5sum reads it), but only after every earlier name of the thread's share is done.
*/
MERKLE_API merkle_status merkle_manifest_hash_files(merkle_check_result *results,
                                                    const char *const *names, size_t n,
                                                    merkle_hash_alg alg, size_t digest_len,
                                                    const merkle_check_opts *opts,
                                                    merkle_error *err);

/* ------------------------------------------------------------------ audit */

/* What merkle_manifest_audit found about one name (hashdeep-style audit). */
typedef enum merkle_audit_kind {
    MERKLE_AUDIT_CHANGED = 1,    /* listed, present, digest differs */
    MERKLE_AUDIT_MISSING = 2,    /* listed, not present, no unlisted file has its digest */
    MERKLE_AUDIT_MOVED = 3,      /* listed, not present; `to` (not listed) has its digest */
    MERKLE_AUDIT_NEW = 4,        /* a regular file under the directory that is not listed */
    MERKLE_AUDIT_UNREADABLE = 5, /* listed; open or read failed (sys_errno) */
    MERKLE_AUDIT_WALK_ERROR = 6  /* the directory walk failed somewhere (sys_errno: the first
                                 ** error; the walk went on); reported once, before all else */
} merkle_audit_kind;

/* One finding. The strings are valid during the callback only. */
typedef struct merkle_audit_event {
    merkle_audit_kind kind;
    const char *name; /* the listed name (a leading "./" removed), or the new file's name
                      ** relative to the directory; "" for WALK_ERROR */
    const char *to;   /* MOVED: the unlisted file with the digest; NULL otherwise */
    size_t entry;     /* index into the manifest's entries; SIZE_MAX for NEW, WALK_ERROR */
    int sys_errno;    /* UNREADABLE, WALK_ERROR; 0 otherwise */
} merkle_audit_event;

typedef void (*merkle_audit_event_fn)(void *ctx, const merkle_audit_event *event);

/* The stages of an audit, for a progress display: CHECK hashes the listed files (files =
** their count), MOVES hashes the unlisted files to pair them with missing ones (files =
** their count; only when both exist), REPORT precedes the events of the report. */
typedef enum merkle_audit_stage {
    MERKLE_AUDIT_STAGE_CHECK = 1,
    MERKLE_AUDIT_STAGE_MOVES = 2,
    MERKLE_AUDIT_STAGE_REPORT = 3
} merkle_audit_stage;

typedef void (*merkle_audit_stage_fn)(void *ctx, merkle_audit_stage stage, uint64_t files);

/* Totals of one audit. */
typedef struct merkle_audit_counts {
    uint64_t ok, changed, missing, moved, new_files, unreadable;
    uint64_t walk_errors; /* 0 or 1: see MERKLE_AUDIT_WALK_ERROR */
} merkle_audit_counts;

/* The layout version of merkle_audit_opts this header describes. */
#define MERKLE_AUDIT_OPTS_VERSION 1

typedef struct merkle_audit_opts {
    uint32_t version;               /* MERKLE_AUDIT_OPTS_VERSION, set by merkle_audit_opts_init */
    unsigned threads;               /* 0 = one per online CPU */
    const merkle_file_id *skip;     /* optional: leave the file with this dev and ino_hi/lo out of
                                    ** the walk (the manifest itself, when it lies in the tree) */
    merkle_audit_event_fn on_event; /* optional: every finding, in report order */
    void *event_ctx;
    merkle_audit_stage_fn on_stage;    /* optional, see merkle_audit_stage */
    merkle_check_progress_fn progress; /* optional, as in merkle_check_opts, per stage */
    void *progress_ctx;                /* for on_stage and progress */
} merkle_audit_opts;

/* Static initialiser with the defaults. */
#define MERKLE_AUDIT_OPTS_INIT                                                                     \
    {                                                                                              \
        MERKLE_AUDIT_OPTS_VERSION, 0, 0, 0, 0, 0, 0, 0                                             \
    }

/* Defaults for `version` (pass MERKLE_AUDIT_OPTS_VERSION): everything zero. MERKLE_ERR_ARG for
** a NULL o or a version this library does not know. */
MERKLE_API merkle_status merkle_audit_opts_init(merkle_audit_opts *o, uint32_t version);

/*
** Audit the directory dir against manifest m (not modified), as `merkle audit` does: walk
** every regular file under dir (symbolic links are not followed, other file types ignored),
** check the listed ones (names relative to dir; "./a" and "a"
** are one name), and pair each missing entry with an unlisted file of the same digest
** (hashed once per algorithm among the missing entries; within one digest, missing and new
** names pair in byte order of their names; a name listed twice pairs once).
** Findings go to opts->on_event, on the calling thread, in this order: WALK_ERROR (at most
** once, right after the walk), then CHANGED, MISSING and UNREADABLE in manifest order, then
** MOVED in manifest order of the old name, then NEW by name bytes. *counts (may be NULL)
** receives the totals. Differences and unreadable files are findings, not errors.
** Errors: MERKLE_ERR_ARG (NULL m or dir, unknown opts version), MERKLE_ERR_IO (dir cannot be
** opened as a directory; err->sys_errno), MERKLE_ERR_NOMEM; no
** event has been delivered after a failure except WALK_ERROR.
** Thread safety: reentrant; uses opts->threads worker threads while hashing.
*/
MERKLE_API merkle_status merkle_manifest_audit(merkle_audit_counts *counts,
                                               const merkle_manifest *m, const char *dir,
                                               const merkle_audit_opts *opts, merkle_error *err);

/* ------------------------------------------------------------------ verified reads */

typedef struct merkle_vreader merkle_vreader;
typedef struct merkle_vbuf merkle_vbuf;

/*
** A verified reader over manifest m (its entries are copied: m may be freed afterwards) for
** files relative to dir (NULL: the current directory, resolved at each read; a directory
** given is opened once and kept open). byte_budget bounds the verified contents kept in
** memory (0 = keep nothing). ALLOCATES: merkle_vreader_free. Duplicate names in m:
** MERKLE_ERR_FORMAT; a dir that cannot be opened: MERKLE_ERR_IO.
*/
MERKLE_API merkle_status merkle_vreader_alloc(merkle_vreader **out, const merkle_manifest *m,
                                              const char *dir, size_t byte_budget,
                                              merkle_error *err);
/* Free the reader. Buffers still held by the caller stay valid until released. */
MERKLE_API void merkle_vreader_free(merkle_vreader *r);

/*
** Read the file `name` of the manifest and return its contents only if they hash to the
** manifest's digest: *data/ *len are exactly the bytes that were hashed, held by *buf until
** merkle_vbuf_free(*buf). An unchanged file (same identity and stat, older than the
** moment it was verified) is served from memory without reading. Errors:
** MERKLE_ERR_ARG (name not in the manifest), MERKLE_ERR_IO (open/read; sys_errno),
** MERKLE_ERR_VERIFY (contents do not match: nothing returned), MERKLE_ERR_NOMEM.
** *from_cache (may be NULL) is 1 when served from memory. Thread-safe.
*/
MERKLE_API merkle_status merkle_vreader_read(const uint8_t **data, size_t *len, merkle_vbuf **buf,
                                             int *from_cache, merkle_vreader *r, const char *name,
                                             merkle_error *err);
/* Drop a reference to a buffer returned by merkle_vreader_read (NULL is fine). Thread-safe. */
MERKLE_API void merkle_vbuf_free(merkle_vbuf *buf);
/* Bytes of verified contents currently cached. */
MERKLE_API size_t merkle_vreader_cached_bytes(merkle_vreader *r);

/* ------------------------------------------------------------------ directory root */

/*
** Leaf of one entry in the directory root:
**   u32 big-endian name length || name bytes || u8 algorithm (enum value) ||
**   u8 digest length || digest
** Writes it to out[0..cap); *out_len gets the length in every case (MERKLE_ERR_BUFFER when
** cap is too small).
*/
MERKLE_API merkle_status merkle_manifest_leaf_encode(uint8_t *out, size_t cap, size_t *out_len,
                                                     const merkle_manifest_entry *e);

/*
** Sort m's entries into the canonical order of the directory root: by name bytes
** (unsigned memcmp, a prefix first). Duplicate names give MERKLE_ERR_FORMAT (err->line is
** the later line). After sorting, entry i is leaf i.
*/
MERKLE_API merkle_status merkle_manifest_sort(merkle_manifest *m, merkle_error *err);

/*
** Directory root: sorts m (as merkle_manifest_sort) and writes the RFC 6962 SHA-256 root of
** the leaves of its entries. An empty manifest gives SHA-256(""). Errors: as
** merkle_manifest_sort, MERKLE_ERR_NOMEM.
*/
MERKLE_API merkle_status merkle_manifest_dirroot(uint8_t out[MERKLE_HASH_LEN], merkle_manifest *m,
                                                 merkle_error *err);

#ifdef __cplusplus
}
#endif
#endif
