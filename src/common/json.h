/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The one JSON reader and writer of the library (internal, never installed).
**
** Reading: a cursor over the text (merkle__json) and one function per JSON construct; each
** skips white space first, and a syntax error fills the cursor's merkle_error ("proof
** JSON, byte N: ...") and returns MERKLE_ERR_FORMAT. Strings are returned raw (escapes
** validated, not decoded: merkle__json_unescape decodes). Hashes of the wrong length are not
** syntax errors: the first one is remembered in bad_len / bad_len_msg for the caller.
**
** Writing: into a merkle__sink (src/common/internal.h: the size-query convention).
*/
#ifndef MERKLE_JSON_H
#define MERKLE_JSON_H

#include "common/internal.h"

typedef struct merkle__json {
    const char *s;
    size_t len, pos;
    merkle_error *err;
    merkle_status bad_len; /* MERKLE_ERR_VERIFY once a hash of the wrong length was seen */
    char bad_len_msg[120];
    const char *doc; /* the document in messages; NULL: "proof JSON" */
} merkle__json;

/* A cursor over s[0..len) reporting into err (may be NULL). */
#define MERKLE__JSON_INIT(s, len, err)                                                             \
    {                                                                                              \
        (s), (len), 0, (err), MERKLE_OK, { 0 }, NULL                                               \
    }

/* A format error at the cursor: "proof JSON, byte N: what". */
merkle_status merkle__json_fail(merkle__json *j, const char *what);
/* The next byte after white space (not consumed), or -1 at the end. */
int merkle__json_peek(merkle__json *j);
/* The byte c (after white space), consumed; else a format error saying what was expected. */
merkle_status merkle__json_expect(merkle__json *j, int c, const char *what);
/*
** The two ends of every array or object loop, so that each container is read by one rule:
**   int more;
**   if ((s = merkle__json_open(j, '[', "x must be an array", &more)) != MERKLE_OK) return s;
**   while (more) {
**       ...one element...
**       if ((s = merkle__json_next(j, ']', &more)) != MERKLE_OK) return s;
**   }
** open: the byte open ('[' or '{') consumed (else a format error saying what), and *more = 0
** when the container is empty (its close consumed too). next: after an element, ','
** consumed and *more = 1 (an element must follow: "[1,]" fails at the element), or the close
** (']' or '}') consumed and *more = 0; else "expected ',' or ']'".
*/
merkle_status merkle__json_open(merkle__json *j, int open, const char *what, int *more);
merkle_status merkle__json_next(merkle__json *j, int close, int *more);
/* A string, raw (escapes validated and kept): *a, *n. */
merkle_status merkle__json_string(merkle__json *j, const char **a, size_t *n);
/* An object's key and the ':' after it. */
merkle_status merkle__json_key(merkle__json *j, const char **k, size_t *kn);
/* Exactly the bytes of lit (true, false, null). */
merkle_status merkle__json_literal(merkle__json *j, const char *lit);
/* A non-negative integer without sign, fraction or exponent, at most 2^64 - 1. */
merkle_status merkle__json_uint(merkle__json *j, uint64_t *out);
/* The same, or a JSON string of its decimal digits (CometBFT writes int64 so: "12"). */
merkle_status merkle__json_uint_or_string(merkle__json *j, uint64_t *out);
/* Any number, skipped. */
merkle_status merkle__json_number_skip(merkle__json *j);
/* Any value, skipped (depth: the nesting so far; more than 32 is an error). */
merkle_status merkle__json_skip(merkle__json *j, int depth);
/* A hex string (optional 0x) into out[0..cap); *n = decoded length; MERKLE_ERR_BUFFER (with
** *n) when valid hex does not fit. */
merkle_status merkle__json_hex(merkle__json *j, uint8_t *out, size_t cap, size_t *n,
                               const char *what);
/* A standard base64 string (padded; Go's encoding of []byte) into out[0..cap); *n = decoded
** length; MERKLE_ERR_BUFFER (with *n) when it does not fit. */
merkle_status merkle__json_base64(merkle__json *j, uint8_t *out, size_t cap, size_t *n,
                                  const char *what);
/* A 32-byte hash, in hex (optional 0x) or, when not hex, standard base64 (CometBFT's JSON).
** Another length marks the document unverifiable (bad_len), not malformed;
** with substitute (roots), it becomes SHA-256(0x02 || bytes), which verifies only against
** the very same bytes. */
merkle_status merkle__json_hash(merkle__json *j, uint8_t out[MERKLE_HASH_LEN], const char *what,
                                int substitute);
/* An array of hashes (kind 'h'), unsigned integers ('u') or booleans ('b'), appended to
** *buf (grown with merkle__grow), *n elements. */
merkle_status merkle__json_array(merkle__json *j, char kind, void **buf, size_t *n,
                                 const char *what);
/* Whether the raw string a[0..n) is the key k. */
int merkle__json_key_is(const char *a, size_t n, const char *k);
/* Decode a string's raw content a[0..n) (as validated by merkle__json_string) into out, which
** has room for n bytes; returns the decoded length (UTF-8 for \u escapes). */
size_t merkle__json_unescape(char *out, const char *a, size_t n);

/* printf into the sink (one call writes at most 127 bytes). */
void merkle__json_putf(merkle__sink *b, const char *fmt, ...) MERKLE_PRINTF(2, 3);
/* "hex" of d[0..n). */
void merkle__json_hex_string(merkle__sink *b, const uint8_t *d, size_t n);
/* "base64" (standard, padded) of d[0..n). */
void merkle__json_base64_string(merkle__sink *b, const uint8_t *d, size_t n);
/* A JSON string of the bytes s[0..n) (quotes, backslashes and control characters escaped). */
void merkle__json_string_put(merkle__sink *o, const char *s, size_t n);

#endif
