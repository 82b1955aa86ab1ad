/*
** coreutils' quotef(): gnulib quotearg with shell_escape_quoting_style and ':' quoted, in
** the C locale. md5sum -c names files this way in its error messages; `merkle check`
** prints the same bytes so that its stderr matches. Reproduced from observed behaviour,
** including the double-quote form for names with an apostrophe and the extra "''" that
** gnulib emits when such a name ends in an escaped byte.
*/
#include <stdio.h>
#include <string.h>

#include "manifest_cli.h"

static int is_ctrl(unsigned char c)
{
    return c < 0x20 || c >= 0x7f;
}

/* Does c force quoting at position i of a name of length n? */
static int needs_quote(unsigned char c, size_t i, size_t n)
{
    if (is_ctrl(c)) return 1;
    switch (c) {
    case ' ': case '!': case '"': case '$': case '&': case '\'': case '(': case ')':
    case '*': case ';': case '<': case '=': case '>': case '?': case '[': case '\\':
    case '^': case '`': case '|': case ':':
        return 1;
    case '#': case '~': return i == 0;
    case '{': case '}': return n == 1;
    default: return 0;
    }
}

/* Characters that may appear inside "..." as well as inside '...' (gnulib's
** c_and_shell_quote_compat). */
static int compat(unsigned char c, size_t i, size_t n)
{
    if (is_ctrl(c)) return 0;
    switch (c) {
    case '!': case '"': case '$': case '&': case '(': case ')': case '*': case ';':
    case '<': case '=': case '>': case '?': case '[': case '\\': case '^': case '`':
    case '|':
        return 0;
    case '#': case '~': return i == 0;
    case '{': case '}': return n == 1;
    default: return 1;
    }
}

static void esc(FILE *f, unsigned char c)
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
    size_t n = strlen(s);
    int plain = n > 0;
    for (size_t i = 0; i < n && plain; i++)
        if (needs_quote((unsigned char)s[i], i, n)) plain = 0;
    if (plain) {
        fputs(s, f);
        return;
    }
    int has_sq = strchr(s, '\'') != NULL;
    int all_compat = 1, pending = 0;
    for (size_t i = 0; i < n; i++)
        if (!compat((unsigned char)s[i], i, n)) all_compat = 0;
    if (has_sq && all_compat) {
        fputc('"', f);
        fputs(s, f);
        fputc('"', f);
        return;
    }
    if (has_sq) {
        /* gnulib scanned the name once from the first apostrophe on without writing, then
        ** restarts without resetting its "inside $'...'" state: replay that scan. */
        for (size_t i = (size_t)(strchr(s, '\'') - s); i < n; i++) {
            unsigned char c = (unsigned char)s[i];
            if (is_ctrl(c)) pending = 1;
            else if (c == '\'') pending = 0;
            else pending = 0;
        }
    }
    fputc('\'', f);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (is_ctrl(c)) {
            if (!pending) {
                fputs("'$'", f);
                pending = 1;
            }
            esc(f, c);
        } else if (c == '\'') {
            fputs("'\\''", f);
            pending = 0;
        } else {
            if (pending) {
                fputs("''", f);
                pending = 0;
            }
            fputc(c, f);
        }
    }
    fputc('\'', f);
}
