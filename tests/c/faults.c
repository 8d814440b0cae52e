/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Memory misuse the kernel must report, as argv[1] says, on the last
 * rank while the others wait in a barrier: "array" (a function with a
 * 100 KiB local array: more than the default 64 KiB stack, fine in a
 * larger one), "recurse" (recursion without end), "heap" (a write of
 * 4 KiB past the end of malloc(16), then free) and "code" (a write into
 * the program's own code). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_BYTES (100 * 1024)

/* Fills a 100 KiB array on the stack and sums every 512th byte. */
__attribute__((noinline)) static int use_array(int seed)
{
    volatile char big[ARRAY_BYTES];
    for (int i = 0; i < ARRAY_BYTES; i += 512) {
        big[i] = (char)(seed + i);
    }
    int sum = 0;
    for (int i = 0; i < ARRAY_BYTES; i += 512) {
        sum += big[i];
    }
    return sum;
}

/* Calls itself depth times; the volatile store before and load after the
 * call keep gcc from turning the recursion into a loop. */
__attribute__((noinline)) static int recurse(int depth)
{
    volatile int frame[16];
    frame[0] = depth;
    if (depth == 0) {
        return 0;
    }
    return recurse(depth - 1) + frame[0];
}

/* Writes 4 KiB past the end of a 16-byte block, then frees it. */
__attribute__((noinline)) static void overrun_heap(int rank)
{
    char *p = malloc(16);
    printf("rank %d: malloc(16) = %p\n", rank, (void *)p);
    memset(p, 'x', 16 + 4096);
    free(p);
}

/* Writes one byte into the code of this very function. */
__attribute__((noinline)) static void write_code(int rank)
{
    volatile unsigned char *code = (volatile unsigned char *)(uintptr_t)&write_code;
    printf("rank %d: writing to code at %p\n", rank, (void *)code);
    *code = 0x90;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        printf("usage: faults array|recurse|heap|code\n");
        return 2;
    }
    if (rank == size - 1) {
        const char *what = argv[1];
        if (strcmp(what, "array") == 0) {
            printf("rank %d: array sum %d\n", rank, use_array(rank));
        } else if (strcmp(what, "recurse") == 0) {
            printf("rank %d: recursion returned %d\n", rank, recurse(1000000));
        } else if (strcmp(what, "heap") == 0) {
            overrun_heap(rank);
            printf("rank %d: freed without a word\n", rank);
        } else if (strcmp(what, "code") == 0) {
            write_code(rank);
            printf("rank %d: wrote to code without a word\n", rank);
        } else {
            printf("unknown: %s\n", what);
            return 2;
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
