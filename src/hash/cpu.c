/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** CPU feature detection (x86-64 CPUID + XGETBV; aarch64 Linux getauxval). Read once; pure
** function of the machine.
*/
#include "hash/impl.h"

#if defined(MERKLE_HAVE_X86) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>

static unsigned detect(void)
{
    unsigned a, b, c, d, f = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    int osxsave = (c >> 27) & 1;
    if ((c >> 9) & 1) f |= MERKLE_CPU_SSSE3;
    if ((c >> 19) & 1) f |= MERKLE_CPU_SSE41;
    int avx = (c >> 28) & 1;
    unsigned long long xcr0 = 0;
    if (osxsave) {
        unsigned lo, hi;
        __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        xcr0 = ((unsigned long long)hi << 32) | lo;
    }
    int ymm_ok = avx && (xcr0 & 0x6) == 0x6;
    int zmm_ok = ymm_ok && (xcr0 & 0xe0) == 0xe0;
    if (__get_cpuid_max(0, NULL) >= 7) {
        __cpuid_count(7, 0, a, b, c, d);
        if (((b >> 5) & 1) && ymm_ok) f |= MERKLE_CPU_AVX2;
        if (((b >> 8) & 1)) f |= MERKLE_CPU_BMI2;
        if (((b >> 29) & 1)) f |= MERKLE_CPU_SHA;
        if (((b >> 16) & 1) && ((b >> 30) & 1) && ((b >> 31) & 1) && zmm_ok) f |= MERKLE_CPU_AVX512;
    }
    return f;
}
#elif defined(MERKLE_HAVE_ARM64) && defined(__linux__)
#include <sys/auxv.h>

static unsigned detect(void)
{
    /* HWCAP_SHA2 of the aarch64 Linux ABI (asm/hwcap.h), spelled out for old headers. */
    return (getauxval(AT_HWCAP) & (1ul << 6)) ? MERKLE_CPU_ARM_SHA2 : 0;
}
#else
static unsigned detect(void)
{
    return 0;
}
#endif

unsigned merkle__cpu_features(void)
{
    /* Benign race: every thread computes the same value. */
    static volatile unsigned cached = 0, done = 0;
    if (!done) {
        cached = detect();
        done = 1;
    }
    return cached;
}
