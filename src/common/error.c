/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Status messages and error detail.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/internal.h"

#undef merkle__fail /* the analyzer's stand-ins of internal.h, not for the definitions */
#undef merkle__fail_errno

const char *merkle_strerror(merkle_status status)
{
    switch (status) {
    case MERKLE_OK: return "success";
    case MERKLE_ERR_ARG: return "invalid argument";
    case MERKLE_ERR_BUFFER: return "output buffer too small";
    case MERKLE_ERR_FORMAT: return "malformed input";
    case MERKLE_ERR_VERIFY: return "verification failed";
    case MERKLE_ERR_IO: return "input/output error";
    case MERKLE_ERR_NOMEM: return "out of memory";
    case MERKLE_ERR_RANGE: return "value out of range";
    case MERKLE_ERR_LIMIT: return "limit exceeded";
    case MERKLE_ERR_UNSUPPORTED: return "not supported";
    case MERKLE_ERR_STATE: return "invalid state for this call";
    case MERKLE_ERR_UNSAFE: return "refused: not a file this library may overwrite";
    }
    return "unknown error";
}

static void set_message(merkle_error *err, const char *fmt, va_list ap) MERKLE_PRINTF(2, 0);
static void set_message(merkle_error *err, const char *fmt, va_list ap)
{
    if (fmt) {
        vsnprintf(err->message, sizeof err->message, fmt, ap);
    } else {
        snprintf(err->message, sizeof err->message, "%s", merkle_strerror(err->status));
    }
}

merkle_status merkle__fail(merkle_error *err, merkle_status status, uint64_t line, uint64_t offset,
                           const char *fmt, ...)
{
    if (err) {
        err->status = status;
        err->line = line;
        err->offset = offset;
        err->sys_errno = 0;
        va_list ap;
        va_start(ap, fmt);
        set_message(err, fmt, ap);
        va_end(ap);
    }
    return status;
}

merkle_status merkle__fail_errno(merkle_error *err, int sys_errno, const char *fmt, ...)
{
    if (err) {
        err->status = MERKLE_ERR_IO;
        err->line = 0;
        err->offset = 0;
        err->sys_errno = sys_errno;
        va_list ap;
        va_start(ap, fmt);
        set_message(err, fmt, ap);
        va_end(ap);
    }
    return MERKLE_ERR_IO;
}

int merkle_ct_equal(const void *a, const void *b, size_t n)
{
    const volatile uint8_t *x = (const volatile uint8_t *)a;
    const volatile uint8_t *y = (const volatile uint8_t *)b;
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++) acc |= (uint8_t)(x[i] ^ y[i]);
    return acc == 0;
}

const char *merkle_version(void)
{
    return MERKLE_VERSION_STRING;
}

#ifdef MERKLE_CHECKS
_Noreturn void merkle__assert_fail(const char *cond, const char *file, int line)
{
    fprintf(stderr, "libmerkle: internal invariant violated: %s (%s:%d)\n", cond, file, line);
    abort();
}
#endif
