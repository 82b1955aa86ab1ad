/*
** The text operation format of `merkle trie` (docs/trie.md): one operation per line,
** "put KEYHEX VALUEHEX" or "del KEYHEX", fields separated by white space, a lone "-" for an
** empty key or value, blank lines and '#' comments ignored.
*/
#include <string.h>

#include "common/internal.h"
#include "trie/trie_impl.h"

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* Decode a hex field in place into dst (room for flen/2 bytes); "-" is empty. */
static merkle_status field(uint8_t *dst, size_t *n, const char *f, size_t flen, merkle_error *e)
{
    if (flen == 1 && f[0] == '-') {
        *n = 0;
        return MERKLE_OK;
    }
    return merkle_hex_decode(dst, flen / 2, n, f, flen, e);
}

merkle_status merkle_trie_apply_text(merkle_trie *t, const char *text, size_t len,
                                     uint64_t *ops, uint8_t *scratch, size_t scratch_cap,
                                     merkle_error *err)
{
    if (t == NULL || (text == NULL && len) || (scratch == NULL && scratch_cap))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "invalid argument");
    uint64_t line = 0, applied = 0;
    size_t pos = 0;
    merkle_status st = MERKLE_OK;
    while (pos < len) {
        line++;
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        const char *f[3];
        size_t fl[3];
        int nf = 0, extra = 0;
        size_t i = pos;
        while (i < end) {
            while (i < end && is_space(text[i])) i++;
            if (i >= end || text[i] == '#') break;
            size_t s = i;
            while (i < end && !is_space(text[i])) i++;
            if (nf < 3) {
                f[nf] = text + s;
                fl[nf] = i - s;
                nf++;
            } else {
                extra = 1;
            }
        }
        size_t lstart = pos;
        pos = end + 1;
        if (nf == 0) continue;
        int is_put = fl[0] == 3 && memcmp(f[0], "put", 3) == 0;
        int is_del = fl[0] == 3 && memcmp(f[0], "del", 3) == 0;
        if (!is_put && !is_del) {
            int show = fl[0] > 40 ? 40 : (int)fl[0];
            for (int k = 0; k < show; k++)
                if ((unsigned char)f[0][k] < 0x20 || (unsigned char)f[0][k] > 0x7e) show = k;
            st = merkle__fail(err, MERKLE_ERR_FORMAT, line, lstart,
                              "unknown operation '%.*s' (expected put or del)", show, f[0]);
            break;
        }
        int want = is_put ? 3 : 2;
        if (nf != want || extra) {
            st = merkle__fail(err, MERKLE_ERR_FORMAT, line, lstart, "%s",
                              is_put ? (nf < want ? "put needs KEYHEX and VALUEHEX"
                                                  : "put takes 2 fields")
                                     : (nf < want ? "del needs KEYHEX" : "del takes 1 field"));
            break;
        }
        size_t need = fl[1] / 2 + (is_put ? fl[2] / 2 : 0);
        if (need > scratch_cap) {
            st = merkle__fail(err, MERKLE_ERR_BUFFER, line, lstart,
                              "line needs %zu bytes of scratch space, have %zu", need,
                              scratch_cap);
            break;
        }
        merkle_error e;
        size_t kl, vl = 0;
        if (field(scratch, &kl, f[1], fl[1], &e) != MERKLE_OK) {
            st = merkle__fail(err, MERKLE_ERR_FORMAT, line, lstart, "invalid key: %s", e.message);
            break;
        }
        if (is_put && field(scratch + kl, &vl, f[2], fl[2], &e) != MERKLE_OK) {
            st = merkle__fail(err, MERKLE_ERR_FORMAT, line, lstart, "invalid value: %s",
                              e.message);
            break;
        }
        st = is_put ? merkle_trie_put(t, scratch, kl, scratch + kl, vl)
                    : merkle_trie_delete(t, NULL, scratch, kl);
        if (st != MERKLE_OK) {
            st = merkle__fail(err, st, line, lstart, "%s", merkle_strerror(st));
            break;
        }
        applied++;
    }
    if (ops) *ops = applied;
    return st;
}
