/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The one thread fan-out (parallel.h). */
#include "parallel.h"

#include <pthread.h>
#include <stdlib.h>

#define PAR_STACK_SHARES 128 /* shares whose bookkeeping lives on the stack */

typedef struct par_run {
    merkle__share_fn fn;
    void *arg;
} par_run;

typedef struct par_slot {
    pthread_t tid;
    const par_run *run;
    unsigned share;
    int rc;
} par_slot;

static void *par_main(void *p)
{
    par_slot *s = p;
    s->rc = s->run->fn(s->run->arg, s->share);
    return NULL;
}

int merkle__parallel_for(unsigned n, merkle__share_fn fn, merkle__unstarted_fn unstarted, void *arg)
{
    if (n == 0) return 0;
    par_run run = { fn, arg };
    par_slot stack[PAR_STACK_SHARES];
    par_slot *slot = stack;
    if (n > PAR_STACK_SHARES) {
        slot = malloc(n * sizeof *slot);
        if (!slot) return MERKLE_ERR_NOMEM;
    }
    unsigned started = 1; /* shares [1, started) run on threads of their own */
    for (; started < n; started++) {
        slot[started].run = &run;
        slot[started].share = started;
        slot[started].rc = 0;
        if (pthread_create(&slot[started].tid, NULL, par_main, &slot[started]) != 0) break;
    }
    if (unstarted)
        for (unsigned i = started; i < n; i++) unstarted(arg, i);
    int rc = fn(arg, 0);
    for (unsigned i = started; i < n && !unstarted; i++) {
        /* No thread: the caller does the share itself (its result still ranks by number). */
        slot[i].rc = fn(arg, i);
    }
    for (unsigned i = 1; i < started; i++) pthread_join(slot[i].tid, NULL);
    for (unsigned i = 1; i < n && rc == 0; i++)
        if (i < started || !unstarted) rc = slot[i].rc;
    if (slot != stack) free(slot);
    return rc;
}

void merkle__parallel_skip(void *arg, unsigned share)
{
    (void)arg;
    (void)share;
}
