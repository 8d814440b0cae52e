/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* producer_consumer.c: even PEs produce, each for the odd PE above it:
 * the consumer has the data's and the flag's lines in its cache, says it
 * is ready, and the producer puts the data, fences and sets the flag. The
 * consumer waits with shmem_int_wait_until, which reads the flag fresh
 * each time, and then finds every value.
 *
 * Built with -DSTALE, the consumer waits with plain loads of the flag
 * instead: the one synchronisation removed. Its cached line keeps the old
 * flag and data, the coherence checker names the stale reads, and the
 * program reports what it saw instead of failing. */
#include <shmem.h>
#include <stdio.h>

#include "check.h"

#define N 40
/* How long the -DSTALE consumer polls, in modelled seconds: far longer
 * than the producer takes. */
#define POLL_SECONDS 0.002

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int *data = shmem_calloc(N, sizeof(int));
    int *flag = shmem_calloc(1, sizeof(int));
    int *ready = shmem_calloc(1, sizeof(int));
    int producer = me % 2 == 0 && me + 1 < n;
    int consumer = me % 2 == 1;
    if (consumer) {
        /* The data's and the flag's lines into this core's cache. */
        int sum = 0;
        for (int i = 0; i < N; i++) sum += ((volatile int *)data)[i];
        sum += *(volatile int *)flag;
        CHECK(sum == 0, "calloc left %d", sum);
        shmem_int_p(ready, 1, me - 1);
#ifdef STALE
        long polls = 0;
        double deadline = shmem_wtime() + POLL_SECONDS;
        while (*(volatile int *)flag == 0 && shmem_wtime() < deadline) polls++;
        int stale = 0;
        for (int i = 0; i < N; i++) stale += data[i] != (me - 1) * 7 + i + 1;
        printf("PE %d: flag %s after %ld polls, %d of %d values stale\n", me,
               *(volatile int *)flag ? "seen" : "not seen", polls, stale, N);
#else
        shmem_int_wait_until(flag, SHMEM_CMP_EQ, 1);
        for (int i = 0; i < N; i++)
            CHECK(data[i] == (me - 1) * 7 + i + 1, "data[%d] = %d", i, data[i]);
        printf("PE %d: consumed %d values from PE %d\n", me, N, me - 1);
#endif
    } else if (producer) {
        int vals[N];
        for (int i = 0; i < N; i++) vals[i] = me * 7 + i + 1;
        shmem_int_wait_until(ready, SHMEM_CMP_EQ, 1);
        shmem_int_put(data, vals, N, me + 1);
        shmem_fence();
        shmem_int_p(flag, 1, me + 1);
        printf("PE %d: produced %d values for PE %d\n", me, N, me + 1);
    }
    shmem_finalize();
    return 0;
}
