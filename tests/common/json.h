/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Minimal JSON reader for the test-vector files (tests only, never installed).
** Parses a whole document into a tree; json_free releases it.
*/
#ifndef MERKLE_TEST_JSON_H
#define MERKLE_TEST_JSON_H

#include <stddef.h>
#include <stdint.h>

typedef enum { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_type;

typedef struct json {
    json_type type;
    int boolean;
    double number;
    long long integer; /* exact value when the number has no fraction or exponent */
    char *str;         /* JSON_STRING: NUL-terminated (may contain NULs: use len) */
    size_t len;        /* string length, or item count for arrays and objects */
    char **keys;       /* JSON_OBJECT: key of each item */
    struct json *items;
} json;

/* Parse a file; NULL (with a message on stderr) on any error. */
json *json_parse_file(const char *path);
json *json_parse(const char *text, size_t len);
void json_free(json *j);

/* Member of an object by key, NULL if absent or j is not an object. */
const json *json_get(const json *j, const char *key);
/* String value of member key, NULL if absent or not a string. */
const char *json_get_str(const json *j, const char *key);
/* Item i of an array, NULL if out of range. */
const json *json_at(const json *j, size_t i);

#endif
