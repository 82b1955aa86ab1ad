/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** coreutils' quotef(): gnulib quotearg with shell_escape_quoting_style and ':' quoted. md5sum
** -c names files this way in its error messages; `merkle check` prints the same bytes so that
** its stderr matches. Reproduced from observed behaviour of coreutils 9 in the C locale and
** in UTF-8 locales (LC_ALL / LC_CTYPE / LANG, as gnulib reads them): in a UTF-8 locale a
** valid printable multibyte character is kept as is, other bytes >= 0x80 are escaped in
** octal. Includes the double-quote form for names with an apostrophe and the extra "''"
** gnulib emits when such a name ends in an escaped byte.
*/
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

#include "manifest_util.h"

/* One unit of the name: a plain character (possibly multibyte) or bytes to escape. */
enum { U_PLAIN, U_ESC, U_QUOTE };

typedef struct unit {
    int kind;
    size_t off, len; /* bytes of the name */
    int needs_quote; /* forces quoting (plain units only; escapes always do) */
    int compat;      /* may stand inside "..." as well as '...' */
} unit;

static int g_loc_init, g_utf8;
#ifdef LC_CTYPE_MASK /* POSIX 2008 per-thread locales */
static locale_t g_loc;

static void locale_init(void)
{
    if (g_loc_init) return;
    g_loc_init = 1;
    g_loc = newlocale(LC_CTYPE_MASK, "", (locale_t)0);
    if (g_loc) {
        locale_t old = uselocale(g_loc);
        g_utf8 = MB_CUR_MAX > 1;
        uselocale(old);
    }
}
#define LOC_SWITCH()  locale_t old = g_utf8 ? uselocale(g_loc) : (locale_t)0
#define LOC_RESTORE() (g_utf8 ? (void)uselocale(old) : (void)0)
#else
/* No newlocale (Windows): names quoted as in the C locale (bytes past ASCII escaped). */
static void locale_init(void)
{
    g_loc_init = 1;
    g_utf8 = 0;
}
#define LOC_SWITCH()  ((void)0)
#define LOC_RESTORE() ((void)0)
#endif

static int is_ctrl(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

static int plain_needs_quote(unsigned char c, size_t i, size_t n)
{
    switch (c) {
    case ' ':
    case '!':
    case '"':
    case '$':
    case '&':
    case '\'':
    case '(':
    case ')':
    case '*':
    case ';':
    case '<':
    case '=':
    case '>':
    case '?':
    case '[':
    case '\\':
    case '^':
    case '`':
    case '|':
    case ':': return 1;
    case '#':
    case '~': return i == 0;
    case '{':
    case '}': return n == 1;
    default: return 0;
    }
}

static int plain_compat(unsigned char c, size_t i, size_t n)
{
    switch (c) {
    case '!':
    case '"':
    case '$':
    case '&':
    case '(':
    case ')':
    case '*':
    case ';':
    case '<':
    case '=':
    case '>':
    case '?':
    case '[':
    case '\\':
    case '^':
    case '`':
    case '|': return 0;
    case '#':
    case '~': return i == 0;
    case '{':
    case '}': return n == 1;
    default: return 1;
    }
}

/* The unit of s[0..n) that starts at i (the locale is in use when g_utf8). Names are
** walked unit by unit twice (decide, then write): constant memory whatever the length. */
static unit next_unit(const char *s, size_t n, size_t i)
{
    unsigned char c = (unsigned char)s[i];
    unit x = { U_PLAIN, i, 1, 0, 1 };
    if (c == '\'') {
        x.kind = U_QUOTE;
        x.needs_quote = 1;
    } else if (is_ctrl(c)) {
        x.kind = U_ESC;
        x.compat = 0;
    } else if (c < 0x80) {
        x.needs_quote = plain_needs_quote(c, i, n);
        x.compat = plain_compat(c, i, n);
    } else if (!g_utf8) {
        x.kind = U_ESC;
        x.compat = 0;
    } else {
        mbstate_t st;
        memset(&st, 0, sizeof st);
        wchar_t w;
        size_t b = mbrtowc(&w, s + i, n - i, &st);
        if (b == (size_t)-1 || b == 0) {
            x.kind = U_ESC; /* one invalid byte */
            x.compat = 0;
        } else if (b == (size_t)-2) {
            x.kind = U_ESC; /* incomplete: gnulib escapes the rest of the name */
            x.len = n - i;
            x.compat = 0;
        } else {
            x.len = b;
            if (!iswprint((wint_t)w)) {
                x.kind = U_ESC;
                x.compat = 0;
            }
        }
    }
    return x;
}

static void esc_byte(FILE *f, unsigned char c)
{
    switch (c) {
    case '\a': fputs("\\a", f); break;
    case '\b': fputs("\\b", f); break;
    case '\t': fputs("\\t", f); break;
    case '\n': fputs("\\n", f); break;
    case '\v': fputs("\\v", f); break;
    case '\f': fputs("\\f", f); break;
    case '\r': fputs("\\r", f); break;
    default: fprintf(f, "\\%03o", c); break;
    }
}

void mcli_quotef(FILE *f, const char *s)
{
    locale_init();
    size_t n = strlen(s);
    LOC_SWITCH();
    int quote = n == 0, has_sq = 0, all_compat = 1, last_esc = 0;
    for (size_t i = 0; i < n;) {
        unit x = next_unit(s, n, i);
        if (x.kind != U_PLAIN || x.needs_quote) quote = 1;
        if (x.kind == U_QUOTE) has_sq = 1;
        if (!x.compat) all_compat = 0;
        last_esc = x.kind == U_ESC;
        i += x.len;
    }
    if (!quote) {
        fputs(s, f);
    } else if (has_sq && all_compat) {
        fputc('"', f);
        fputs(s, f);
        fputc('"', f);
    } else {
        /* gnulib scanned the name once without writing (from the first apostrophe on), then
        ** restarts without resetting its "inside $'...'" state: that state is whether the
        ** last unit was an escape. */
        int pending = has_sq && last_esc;
        fputc('\'', f);
        for (size_t i = 0; i < n;) {
            unit x = next_unit(s, n, i);
            if (x.kind == U_ESC) {
                if (!pending) {
                    fputs("'$'", f);
                    pending = 1;
                }
                for (size_t b = 0; b < x.len; b++) esc_byte(f, (unsigned char)s[x.off + b]);
            } else if (x.kind == U_QUOTE) {
                fputs("'\\''", f);
                pending = 0;
            } else {
                if (pending) {
                    fputs("''", f);
                    pending = 0;
                }
                fwrite(s + x.off, 1, x.len, f);
            }
            i += x.len;
        }
        fputc('\'', f);
    }
    LOC_RESTORE();
}
