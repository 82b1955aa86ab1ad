/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Fuzz the checksum-line parser: every line of the input is parsed under each algorithm
** setting (and AUTO); a parsed entry must be consistent, and formatting it (BSD tag, and GNU
** for non-empty names) and parsing the result again must give the same entry back.
** The first byte picks the parser's starting state (bsd_reversed, reject_dash).
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merkle/manifest.h"

static void round_trip(const merkle_manifest_entry *e, unsigned flags)
{
    char line[70000];
    size_t len;
    if (merkle_manifest_format_line(line, sizeof line, &len, e->alg, e->digest, e->digest_len,
                                    e->name, flags) != MERKLE_OK)
        abort();
    merkle_manifest_parser p;
    merkle_manifest_parser_init(&p, e->alg, 0);
    merkle_manifest_entry back;
    if (line[len - 1] != '\n') abort();
    if (merkle_manifest_parse_line(&back, &p, line, len - 1, 1, NULL) != MERKLE_OK) abort();
    if (!back.name || strcmp(back.name, e->name) != 0 || back.digest_len != e->digest_len ||
        memcmp(back.digest, e->digest, e->digest_len) != 0 || back.alg != e->alg)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0 || size > 60000) return 0;
    uint8_t mode = data[0];
    data++;
    size--;
    char *buf = malloc(size + 1);
    if (!buf) return 0;
    for (int a = 0; a <= 5; a++) {
        merkle_manifest_parser p;
        merkle_manifest_parser_init(&p, (merkle_hash_alg)a, 0);
        p.bsd_reversed = (mode & 3) == 3 ? -1 : (int)(mode & 3) - 1;
        p.reject_dash = (mode >> 2) & 1;
        memcpy(buf, data, size);
        buf[size] = '\0';
        size_t pos = 0;
        while (pos <= size) {
            char *nl = memchr(buf + pos, '\n', size - pos);
            size_t l = nl ? (size_t)(nl - (buf + pos)) : size - pos;
            merkle_manifest_entry e;
            merkle_status s = merkle_manifest_parse_line(&e, &p, buf + pos, l, 1, NULL);
            if (s == MERKLE_OK && e.name) {
                if (e.alg < MERKLE_HASH_MD5 || e.alg > MERKLE_HASH_BLAKE2B) abort();
                if (a && e.alg != (merkle_hash_alg)a) abort();
                if (e.digest_len != merkle_hash_alg_len(e.alg) && e.alg != MERKLE_HASH_BLAKE2B)
                    abort();
                if (strlen(e.name) != e.name_len) abort();
                round_trip(&e, MERKLE_MANIFEST_TAG);
                if (e.name_len) round_trip(&e, 0);
            } else if (s != MERKLE_OK && s != MERKLE_ERR_FORMAT) {
                abort();
            }
            pos += l + 1;
        }
        /* the whole-manifest parser on the same bytes */
        merkle_manifest *m;
        merkle_manifest_parser_init(&p, (merkle_hash_alg)a, 0);
        if (merkle_manifest_parse_alloc(&m, &p, data, size, 1, NULL) == MERKLE_OK) {
            uint8_t root[32];
            merkle_manifest_dirroot(root, m, NULL);
            merkle_manifest_free(m);
        }
    }
    free(buf);
    return 0;
}
