/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* shmem.h: OpenSHMEM 1.5 for C programs on the emulated SCC's cores. The
 * library behind it is libshmem.a (rma/shmem): `cargo xtask oshcc` compiles
 * and links against it, `cargo xtask oshrun` boots the image.
 *
 * Every routine declared here exists in the library. The ones at the end
 * ("not supported") end the run with a report naming the routine.
 * Symmetric objects are those of shmem_malloc, shmem_calloc and
 * shmem_align, and the program's global and static variables; a stack
 * or malloc address given as a symmetric address fails naming the
 * routine and the address. `long` and `size_t`
 * are 32 bits on the cores. docs/openshmem.md describes the consistency
 * model on the non-coherent chip. */
#ifndef SHMEM_H
#define SHMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define SHMEM_MAX_NAME_LEN 64
#define SHMEM_VENDOR_STRING "OpenSHMEM on the emulated SCC (dsm over rma)"

#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_LE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_GE 5

typedef int shmem_team_t;
#define SHMEM_TEAM_WORLD ((shmem_team_t)0)
#define SHMEM_TEAM_SHARED ((shmem_team_t)1)
#define SHMEM_TEAM_INVALID ((shmem_team_t)-1)

/* The configuration of a team: the contexts it is made for (none are
 * reserved here; SHMEM_TEAM_NUM_CONTEXTS selects the field). */
typedef struct { int num_contexts; } shmem_team_config_t;
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

/* Contexts: every operation completes when it returns, on any context. */
typedef struct shmem_ctx_opaque *shmem_ctx_t;
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)
#define SHMEM_CTX_DEFAULT ((shmem_ctx_t)1)
#define SHMEM_CTX_SERIALIZED (1L << 0)
#define SHMEM_CTX_PRIVATE (1L << 1)
#define SHMEM_CTX_NOSTORE (1L << 2)

/* Signals of put_signal. */
#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

/* Hints of shmem_malloc_with_hints (advisory). */
#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)

/* Setup, exit and queries. */
void shmem_init(void);
int shmem_init_thread(int requested, int *provided);
void shmem_query_thread(int *provided);
void shmem_finalize(void);
void shmem_global_exit(int status) __attribute__((noreturn));
int shmem_my_pe(void);
int shmem_n_pes(void);
int shmem_pe_accessible(int pe);
int shmem_addr_accessible(const void *addr, int pe);
void *shmem_ptr(const void *dest, int pe);
void shmem_info_get_version(int *major, int *minor);
void shmem_info_get_name(char *name);
double shmem_wtime(void);
/* This library's statistics of the services under OpenSHMEM, printed. */
void shmemx_print_stats(void);
/* Collective: turns the library's consistency actions (the flushes,
 * invalidations and timestamps of quiet, fence, barriers, locks and
 * waits) off (on == 0) or on again, for a run whose time against an
 * enforced one is the consistency overhead. Results are right with them
 * off only where no load can be stale (the chip model's default). */
void shmemx_enforce_consistency(int on);

/* Memory management (collective; the same offset on every PE). */
void *shmem_malloc(size_t size);
void *shmem_calloc(size_t count, size_t size);
void *shmem_align(size_t alignment, size_t size);
void *shmem_realloc(void *ptr, size_t size);
void shmem_free(void *ptr);
void *shmem_malloc_with_hints(size_t size, long hints);

/* Teams: the predefined ones and those split from them. */
int shmem_team_my_pe(shmem_team_t team);
int shmem_team_n_pes(shmem_team_t team);
int shmem_team_sync(shmem_team_t team);
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size, const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team);
int shmem_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config, long xaxis_mask, shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config, long yaxis_mask, shmem_team_t *yaxis_team);
void shmem_team_destroy(shmem_team_t team);
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);
void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe);

/* Contexts. */
int shmem_ctx_create(long options, shmem_ctx_t *ctx);
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
void shmem_ctx_destroy(shmem_ctx_t ctx);
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);
void shmem_ctx_quiet(shmem_ctx_t ctx);
void shmem_ctx_fence(shmem_ctx_t ctx);

/* Remote memory access (the _nbi ones are complete when they return). */
void shmem_putmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_float_put(float *dest, const float *source, size_t nelems, int pe);
void shmem_float_put_nbi(float *dest, const float *source, size_t nelems, int pe);
void shmem_float_get(float *dest, const float *source, size_t nelems, int pe);
void shmem_float_get_nbi(float *dest, const float *source, size_t nelems, int pe);
void shmem_float_iput(float *dest, const float *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_float_iget(float *dest, const float *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_float_p(float *dest, float value, int pe);
float shmem_float_g(const float *source, int pe);
void shmem_double_put(double *dest, const double *source, size_t nelems, int pe);
void shmem_double_put_nbi(double *dest, const double *source, size_t nelems, int pe);
void shmem_double_get(double *dest, const double *source, size_t nelems, int pe);
void shmem_double_get_nbi(double *dest, const double *source, size_t nelems, int pe);
void shmem_double_iput(double *dest, const double *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_double_iget(double *dest, const double *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_double_p(double *dest, double value, int pe);
double shmem_double_g(const double *source, int pe);
void shmem_longdouble_put(long double *dest, const long double *source, size_t nelems, int pe);
void shmem_longdouble_put_nbi(long double *dest, const long double *source, size_t nelems, int pe);
void shmem_longdouble_get(long double *dest, const long double *source, size_t nelems, int pe);
void shmem_longdouble_get_nbi(long double *dest, const long double *source, size_t nelems, int pe);
void shmem_longdouble_iput(long double *dest, const long double *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_longdouble_iget(long double *dest, const long double *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
/* long double is returned in an x87 register: p and g are C, over put and
 * get (with a context: below). */
static inline void shmem_longdouble_p(long double *dest, long double value, int pe)
{
    shmem_longdouble_put(dest, &value, 1, pe);
}
static inline long double shmem_longdouble_g(const long double *source, int pe)
{
    long double value;
    shmem_longdouble_get(&value, source, 1, pe);
    return value;
}
void shmem_char_put(char *dest, const char *source, size_t nelems, int pe);
void shmem_char_put_nbi(char *dest, const char *source, size_t nelems, int pe);
void shmem_char_get(char *dest, const char *source, size_t nelems, int pe);
void shmem_char_get_nbi(char *dest, const char *source, size_t nelems, int pe);
void shmem_char_iput(char *dest, const char *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_char_iget(char *dest, const char *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_char_p(char *dest, char value, int pe);
char shmem_char_g(const char *source, int pe);
void shmem_schar_put(signed char *dest, const signed char *source, size_t nelems, int pe);
void shmem_schar_put_nbi(signed char *dest, const signed char *source, size_t nelems, int pe);
void shmem_schar_get(signed char *dest, const signed char *source, size_t nelems, int pe);
void shmem_schar_get_nbi(signed char *dest, const signed char *source, size_t nelems, int pe);
void shmem_schar_iput(signed char *dest, const signed char *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_schar_iget(signed char *dest, const signed char *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_schar_p(signed char *dest, signed char value, int pe);
signed char shmem_schar_g(const signed char *source, int pe);
void shmem_short_put(short *dest, const short *source, size_t nelems, int pe);
void shmem_short_put_nbi(short *dest, const short *source, size_t nelems, int pe);
void shmem_short_get(short *dest, const short *source, size_t nelems, int pe);
void shmem_short_get_nbi(short *dest, const short *source, size_t nelems, int pe);
void shmem_short_iput(short *dest, const short *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_short_iget(short *dest, const short *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_short_p(short *dest, short value, int pe);
short shmem_short_g(const short *source, int pe);
void shmem_int_put(int *dest, const int *source, size_t nelems, int pe);
void shmem_int_put_nbi(int *dest, const int *source, size_t nelems, int pe);
void shmem_int_get(int *dest, const int *source, size_t nelems, int pe);
void shmem_int_get_nbi(int *dest, const int *source, size_t nelems, int pe);
void shmem_int_iput(int *dest, const int *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_int_iget(int *dest, const int *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_int_p(int *dest, int value, int pe);
int shmem_int_g(const int *source, int pe);
void shmem_long_put(long *dest, const long *source, size_t nelems, int pe);
void shmem_long_put_nbi(long *dest, const long *source, size_t nelems, int pe);
void shmem_long_get(long *dest, const long *source, size_t nelems, int pe);
void shmem_long_get_nbi(long *dest, const long *source, size_t nelems, int pe);
void shmem_long_iput(long *dest, const long *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_long_iget(long *dest, const long *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_long_p(long *dest, long value, int pe);
long shmem_long_g(const long *source, int pe);
void shmem_longlong_put(long long *dest, const long long *source, size_t nelems, int pe);
void shmem_longlong_put_nbi(long long *dest, const long long *source, size_t nelems, int pe);
void shmem_longlong_get(long long *dest, const long long *source, size_t nelems, int pe);
void shmem_longlong_get_nbi(long long *dest, const long long *source, size_t nelems, int pe);
void shmem_longlong_iput(long long *dest, const long long *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_longlong_iget(long long *dest, const long long *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_longlong_p(long long *dest, long long value, int pe);
long long shmem_longlong_g(const long long *source, int pe);
void shmem_uchar_put(unsigned char *dest, const unsigned char *source, size_t nelems, int pe);
void shmem_uchar_put_nbi(unsigned char *dest, const unsigned char *source, size_t nelems, int pe);
void shmem_uchar_get(unsigned char *dest, const unsigned char *source, size_t nelems, int pe);
void shmem_uchar_get_nbi(unsigned char *dest, const unsigned char *source, size_t nelems, int pe);
void shmem_uchar_iput(unsigned char *dest, const unsigned char *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_uchar_iget(unsigned char *dest, const unsigned char *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_uchar_p(unsigned char *dest, unsigned char value, int pe);
unsigned char shmem_uchar_g(const unsigned char *source, int pe);
void shmem_ushort_put(unsigned short *dest, const unsigned short *source, size_t nelems, int pe);
void shmem_ushort_put_nbi(unsigned short *dest, const unsigned short *source, size_t nelems, int pe);
void shmem_ushort_get(unsigned short *dest, const unsigned short *source, size_t nelems, int pe);
void shmem_ushort_get_nbi(unsigned short *dest, const unsigned short *source, size_t nelems, int pe);
void shmem_ushort_iput(unsigned short *dest, const unsigned short *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ushort_iget(unsigned short *dest, const unsigned short *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ushort_p(unsigned short *dest, unsigned short value, int pe);
unsigned short shmem_ushort_g(const unsigned short *source, int pe);
void shmem_uint_put(unsigned int *dest, const unsigned int *source, size_t nelems, int pe);
void shmem_uint_put_nbi(unsigned int *dest, const unsigned int *source, size_t nelems, int pe);
void shmem_uint_get(unsigned int *dest, const unsigned int *source, size_t nelems, int pe);
void shmem_uint_get_nbi(unsigned int *dest, const unsigned int *source, size_t nelems, int pe);
void shmem_uint_iput(unsigned int *dest, const unsigned int *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_uint_iget(unsigned int *dest, const unsigned int *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_uint_p(unsigned int *dest, unsigned int value, int pe);
unsigned int shmem_uint_g(const unsigned int *source, int pe);
void shmem_ulong_put(unsigned long *dest, const unsigned long *source, size_t nelems, int pe);
void shmem_ulong_put_nbi(unsigned long *dest, const unsigned long *source, size_t nelems, int pe);
void shmem_ulong_get(unsigned long *dest, const unsigned long *source, size_t nelems, int pe);
void shmem_ulong_get_nbi(unsigned long *dest, const unsigned long *source, size_t nelems, int pe);
void shmem_ulong_iput(unsigned long *dest, const unsigned long *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ulong_iget(unsigned long *dest, const unsigned long *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ulong_p(unsigned long *dest, unsigned long value, int pe);
unsigned long shmem_ulong_g(const unsigned long *source, int pe);
void shmem_ulonglong_put(unsigned long long *dest, const unsigned long long *source, size_t nelems, int pe);
void shmem_ulonglong_put_nbi(unsigned long long *dest, const unsigned long long *source, size_t nelems, int pe);
void shmem_ulonglong_get(unsigned long long *dest, const unsigned long long *source, size_t nelems, int pe);
void shmem_ulonglong_get_nbi(unsigned long long *dest, const unsigned long long *source, size_t nelems, int pe);
void shmem_ulonglong_iput(unsigned long long *dest, const unsigned long long *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ulonglong_iget(unsigned long long *dest, const unsigned long long *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ulonglong_p(unsigned long long *dest, unsigned long long value, int pe);
unsigned long long shmem_ulonglong_g(const unsigned long long *source, int pe);
void shmem_int8_put(int8_t *dest, const int8_t *source, size_t nelems, int pe);
void shmem_int8_put_nbi(int8_t *dest, const int8_t *source, size_t nelems, int pe);
void shmem_int8_get(int8_t *dest, const int8_t *source, size_t nelems, int pe);
void shmem_int8_get_nbi(int8_t *dest, const int8_t *source, size_t nelems, int pe);
void shmem_int8_iput(int8_t *dest, const int8_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_int8_iget(int8_t *dest, const int8_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_int8_p(int8_t *dest, int8_t value, int pe);
int8_t shmem_int8_g(const int8_t *source, int pe);
void shmem_int16_put(int16_t *dest, const int16_t *source, size_t nelems, int pe);
void shmem_int16_put_nbi(int16_t *dest, const int16_t *source, size_t nelems, int pe);
void shmem_int16_get(int16_t *dest, const int16_t *source, size_t nelems, int pe);
void shmem_int16_get_nbi(int16_t *dest, const int16_t *source, size_t nelems, int pe);
void shmem_int16_iput(int16_t *dest, const int16_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_int16_iget(int16_t *dest, const int16_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_int16_p(int16_t *dest, int16_t value, int pe);
int16_t shmem_int16_g(const int16_t *source, int pe);
void shmem_int32_put(int32_t *dest, const int32_t *source, size_t nelems, int pe);
void shmem_int32_put_nbi(int32_t *dest, const int32_t *source, size_t nelems, int pe);
void shmem_int32_get(int32_t *dest, const int32_t *source, size_t nelems, int pe);
void shmem_int32_get_nbi(int32_t *dest, const int32_t *source, size_t nelems, int pe);
void shmem_int32_iput(int32_t *dest, const int32_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_int32_iget(int32_t *dest, const int32_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_int32_p(int32_t *dest, int32_t value, int pe);
int32_t shmem_int32_g(const int32_t *source, int pe);
void shmem_int64_put(int64_t *dest, const int64_t *source, size_t nelems, int pe);
void shmem_int64_put_nbi(int64_t *dest, const int64_t *source, size_t nelems, int pe);
void shmem_int64_get(int64_t *dest, const int64_t *source, size_t nelems, int pe);
void shmem_int64_get_nbi(int64_t *dest, const int64_t *source, size_t nelems, int pe);
void shmem_int64_iput(int64_t *dest, const int64_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_int64_iget(int64_t *dest, const int64_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_int64_p(int64_t *dest, int64_t value, int pe);
int64_t shmem_int64_g(const int64_t *source, int pe);
void shmem_uint8_put(uint8_t *dest, const uint8_t *source, size_t nelems, int pe);
void shmem_uint8_put_nbi(uint8_t *dest, const uint8_t *source, size_t nelems, int pe);
void shmem_uint8_get(uint8_t *dest, const uint8_t *source, size_t nelems, int pe);
void shmem_uint8_get_nbi(uint8_t *dest, const uint8_t *source, size_t nelems, int pe);
void shmem_uint8_iput(uint8_t *dest, const uint8_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_uint8_iget(uint8_t *dest, const uint8_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_uint8_p(uint8_t *dest, uint8_t value, int pe);
uint8_t shmem_uint8_g(const uint8_t *source, int pe);
void shmem_uint16_put(uint16_t *dest, const uint16_t *source, size_t nelems, int pe);
void shmem_uint16_put_nbi(uint16_t *dest, const uint16_t *source, size_t nelems, int pe);
void shmem_uint16_get(uint16_t *dest, const uint16_t *source, size_t nelems, int pe);
void shmem_uint16_get_nbi(uint16_t *dest, const uint16_t *source, size_t nelems, int pe);
void shmem_uint16_iput(uint16_t *dest, const uint16_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_uint16_iget(uint16_t *dest, const uint16_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_uint16_p(uint16_t *dest, uint16_t value, int pe);
uint16_t shmem_uint16_g(const uint16_t *source, int pe);
void shmem_uint32_put(uint32_t *dest, const uint32_t *source, size_t nelems, int pe);
void shmem_uint32_put_nbi(uint32_t *dest, const uint32_t *source, size_t nelems, int pe);
void shmem_uint32_get(uint32_t *dest, const uint32_t *source, size_t nelems, int pe);
void shmem_uint32_get_nbi(uint32_t *dest, const uint32_t *source, size_t nelems, int pe);
void shmem_uint32_iput(uint32_t *dest, const uint32_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_uint32_iget(uint32_t *dest, const uint32_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_uint32_p(uint32_t *dest, uint32_t value, int pe);
uint32_t shmem_uint32_g(const uint32_t *source, int pe);
void shmem_uint64_put(uint64_t *dest, const uint64_t *source, size_t nelems, int pe);
void shmem_uint64_put_nbi(uint64_t *dest, const uint64_t *source, size_t nelems, int pe);
void shmem_uint64_get(uint64_t *dest, const uint64_t *source, size_t nelems, int pe);
void shmem_uint64_get_nbi(uint64_t *dest, const uint64_t *source, size_t nelems, int pe);
void shmem_uint64_iput(uint64_t *dest, const uint64_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_uint64_iget(uint64_t *dest, const uint64_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_uint64_p(uint64_t *dest, uint64_t value, int pe);
uint64_t shmem_uint64_g(const uint64_t *source, int pe);
void shmem_size_put(size_t *dest, const size_t *source, size_t nelems, int pe);
void shmem_size_put_nbi(size_t *dest, const size_t *source, size_t nelems, int pe);
void shmem_size_get(size_t *dest, const size_t *source, size_t nelems, int pe);
void shmem_size_get_nbi(size_t *dest, const size_t *source, size_t nelems, int pe);
void shmem_size_iput(size_t *dest, const size_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_size_iget(size_t *dest, const size_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_size_p(size_t *dest, size_t value, int pe);
size_t shmem_size_g(const size_t *source, int pe);
void shmem_ptrdiff_put(ptrdiff_t *dest, const ptrdiff_t *source, size_t nelems, int pe);
void shmem_ptrdiff_put_nbi(ptrdiff_t *dest, const ptrdiff_t *source, size_t nelems, int pe);
void shmem_ptrdiff_get(ptrdiff_t *dest, const ptrdiff_t *source, size_t nelems, int pe);
void shmem_ptrdiff_get_nbi(ptrdiff_t *dest, const ptrdiff_t *source, size_t nelems, int pe);
void shmem_ptrdiff_iput(ptrdiff_t *dest, const ptrdiff_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ptrdiff_iget(ptrdiff_t *dest, const ptrdiff_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ptrdiff_p(ptrdiff_t *dest, ptrdiff_t value, int pe);
ptrdiff_t shmem_ptrdiff_g(const ptrdiff_t *source, int pe);
void shmem_put8(void *dest, const void *source, size_t nelems, int pe);
void shmem_put8_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_get8(void *dest, const void *source, size_t nelems, int pe);
void shmem_get8_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_iput8(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_iget8(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_put16(void *dest, const void *source, size_t nelems, int pe);
void shmem_put16_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_get16(void *dest, const void *source, size_t nelems, int pe);
void shmem_get16_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_iput16(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_iget16(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_put32(void *dest, const void *source, size_t nelems, int pe);
void shmem_put32_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_get32(void *dest, const void *source, size_t nelems, int pe);
void shmem_get32_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_iput32(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_iget32(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_put64(void *dest, const void *source, size_t nelems, int pe);
void shmem_put64_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_get64(void *dest, const void *source, size_t nelems, int pe);
void shmem_get64_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_iput64(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_iget64(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_put128(void *dest, const void *source, size_t nelems, int pe);
void shmem_put128_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_get128(void *dest, const void *source, size_t nelems, int pe);
void shmem_get128_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_iput128(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_iget128(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);

/* Ordering and synchronisation. */
void shmem_quiet(void);
void shmem_fence(void);
void shmem_barrier_all(void);
void shmem_sync_all(void);
void shmem_short_wait_until(short *ivar, int cmp, short cmp_value);
int shmem_short_test(short *ivar, int cmp, short cmp_value);
void shmem_int_wait_until(int *ivar, int cmp, int cmp_value);
int shmem_int_test(int *ivar, int cmp, int cmp_value);
void shmem_long_wait_until(long *ivar, int cmp, long cmp_value);
int shmem_long_test(long *ivar, int cmp, long cmp_value);
void shmem_longlong_wait_until(long long *ivar, int cmp, long long cmp_value);
int shmem_longlong_test(long long *ivar, int cmp, long long cmp_value);
void shmem_ushort_wait_until(unsigned short *ivar, int cmp, unsigned short cmp_value);
int shmem_ushort_test(unsigned short *ivar, int cmp, unsigned short cmp_value);
void shmem_uint_wait_until(unsigned int *ivar, int cmp, unsigned int cmp_value);
int shmem_uint_test(unsigned int *ivar, int cmp, unsigned int cmp_value);
void shmem_ulong_wait_until(unsigned long *ivar, int cmp, unsigned long cmp_value);
int shmem_ulong_test(unsigned long *ivar, int cmp, unsigned long cmp_value);
void shmem_ulonglong_wait_until(unsigned long long *ivar, int cmp, unsigned long long cmp_value);
int shmem_ulonglong_test(unsigned long long *ivar, int cmp, unsigned long long cmp_value);
void shmem_int32_wait_until(int32_t *ivar, int cmp, int32_t cmp_value);
int shmem_int32_test(int32_t *ivar, int cmp, int32_t cmp_value);
void shmem_int64_wait_until(int64_t *ivar, int cmp, int64_t cmp_value);
int shmem_int64_test(int64_t *ivar, int cmp, int64_t cmp_value);
void shmem_uint32_wait_until(uint32_t *ivar, int cmp, uint32_t cmp_value);
int shmem_uint32_test(uint32_t *ivar, int cmp, uint32_t cmp_value);
void shmem_uint64_wait_until(uint64_t *ivar, int cmp, uint64_t cmp_value);
int shmem_uint64_test(uint64_t *ivar, int cmp, uint64_t cmp_value);
void shmem_size_wait_until(size_t *ivar, int cmp, size_t cmp_value);
int shmem_size_test(size_t *ivar, int cmp, size_t cmp_value);
void shmem_ptrdiff_wait_until(ptrdiff_t *ivar, int cmp, ptrdiff_t cmp_value);
int shmem_ptrdiff_test(ptrdiff_t *ivar, int cmp, ptrdiff_t cmp_value);

/* Atomics. */
float shmem_float_atomic_fetch(const float *source, int pe);
void shmem_float_atomic_set(float *dest, float value, int pe);
float shmem_float_atomic_swap(float *dest, float value, int pe);
double shmem_double_atomic_fetch(const double *source, int pe);
void shmem_double_atomic_set(double *dest, double value, int pe);
double shmem_double_atomic_swap(double *dest, double value, int pe);
int shmem_int_atomic_fetch(const int *source, int pe);
void shmem_int_atomic_set(int *dest, int value, int pe);
int shmem_int_atomic_swap(int *dest, int value, int pe);
long shmem_long_atomic_fetch(const long *source, int pe);
void shmem_long_atomic_set(long *dest, long value, int pe);
long shmem_long_atomic_swap(long *dest, long value, int pe);
long long shmem_longlong_atomic_fetch(const long long *source, int pe);
void shmem_longlong_atomic_set(long long *dest, long long value, int pe);
long long shmem_longlong_atomic_swap(long long *dest, long long value, int pe);
unsigned int shmem_uint_atomic_fetch(const unsigned int *source, int pe);
void shmem_uint_atomic_set(unsigned int *dest, unsigned int value, int pe);
unsigned int shmem_uint_atomic_swap(unsigned int *dest, unsigned int value, int pe);
unsigned long shmem_ulong_atomic_fetch(const unsigned long *source, int pe);
void shmem_ulong_atomic_set(unsigned long *dest, unsigned long value, int pe);
unsigned long shmem_ulong_atomic_swap(unsigned long *dest, unsigned long value, int pe);
unsigned long long shmem_ulonglong_atomic_fetch(const unsigned long long *source, int pe);
void shmem_ulonglong_atomic_set(unsigned long long *dest, unsigned long long value, int pe);
unsigned long long shmem_ulonglong_atomic_swap(unsigned long long *dest, unsigned long long value, int pe);
int32_t shmem_int32_atomic_fetch(const int32_t *source, int pe);
void shmem_int32_atomic_set(int32_t *dest, int32_t value, int pe);
int32_t shmem_int32_atomic_swap(int32_t *dest, int32_t value, int pe);
int64_t shmem_int64_atomic_fetch(const int64_t *source, int pe);
void shmem_int64_atomic_set(int64_t *dest, int64_t value, int pe);
int64_t shmem_int64_atomic_swap(int64_t *dest, int64_t value, int pe);
uint32_t shmem_uint32_atomic_fetch(const uint32_t *source, int pe);
void shmem_uint32_atomic_set(uint32_t *dest, uint32_t value, int pe);
uint32_t shmem_uint32_atomic_swap(uint32_t *dest, uint32_t value, int pe);
uint64_t shmem_uint64_atomic_fetch(const uint64_t *source, int pe);
void shmem_uint64_atomic_set(uint64_t *dest, uint64_t value, int pe);
uint64_t shmem_uint64_atomic_swap(uint64_t *dest, uint64_t value, int pe);
size_t shmem_size_atomic_fetch(const size_t *source, int pe);
void shmem_size_atomic_set(size_t *dest, size_t value, int pe);
size_t shmem_size_atomic_swap(size_t *dest, size_t value, int pe);
ptrdiff_t shmem_ptrdiff_atomic_fetch(const ptrdiff_t *source, int pe);
void shmem_ptrdiff_atomic_set(ptrdiff_t *dest, ptrdiff_t value, int pe);
ptrdiff_t shmem_ptrdiff_atomic_swap(ptrdiff_t *dest, ptrdiff_t value, int pe);
int shmem_int_atomic_compare_swap(int *dest, int cond, int value, int pe);
int shmem_int_atomic_fetch_inc(int *dest, int pe);
void shmem_int_atomic_inc(int *dest, int pe);
int shmem_int_atomic_fetch_add(int *dest, int value, int pe);
void shmem_int_atomic_add(int *dest, int value, int pe);
long shmem_long_atomic_compare_swap(long *dest, long cond, long value, int pe);
long shmem_long_atomic_fetch_inc(long *dest, int pe);
void shmem_long_atomic_inc(long *dest, int pe);
long shmem_long_atomic_fetch_add(long *dest, long value, int pe);
void shmem_long_atomic_add(long *dest, long value, int pe);
long long shmem_longlong_atomic_compare_swap(long long *dest, long long cond, long long value, int pe);
long long shmem_longlong_atomic_fetch_inc(long long *dest, int pe);
void shmem_longlong_atomic_inc(long long *dest, int pe);
long long shmem_longlong_atomic_fetch_add(long long *dest, long long value, int pe);
void shmem_longlong_atomic_add(long long *dest, long long value, int pe);
unsigned int shmem_uint_atomic_compare_swap(unsigned int *dest, unsigned int cond, unsigned int value, int pe);
unsigned int shmem_uint_atomic_fetch_inc(unsigned int *dest, int pe);
void shmem_uint_atomic_inc(unsigned int *dest, int pe);
unsigned int shmem_uint_atomic_fetch_add(unsigned int *dest, unsigned int value, int pe);
void shmem_uint_atomic_add(unsigned int *dest, unsigned int value, int pe);
unsigned long shmem_ulong_atomic_compare_swap(unsigned long *dest, unsigned long cond, unsigned long value, int pe);
unsigned long shmem_ulong_atomic_fetch_inc(unsigned long *dest, int pe);
void shmem_ulong_atomic_inc(unsigned long *dest, int pe);
unsigned long shmem_ulong_atomic_fetch_add(unsigned long *dest, unsigned long value, int pe);
void shmem_ulong_atomic_add(unsigned long *dest, unsigned long value, int pe);
unsigned long long shmem_ulonglong_atomic_compare_swap(unsigned long long *dest, unsigned long long cond, unsigned long long value, int pe);
unsigned long long shmem_ulonglong_atomic_fetch_inc(unsigned long long *dest, int pe);
void shmem_ulonglong_atomic_inc(unsigned long long *dest, int pe);
unsigned long long shmem_ulonglong_atomic_fetch_add(unsigned long long *dest, unsigned long long value, int pe);
void shmem_ulonglong_atomic_add(unsigned long long *dest, unsigned long long value, int pe);
int32_t shmem_int32_atomic_compare_swap(int32_t *dest, int32_t cond, int32_t value, int pe);
int32_t shmem_int32_atomic_fetch_inc(int32_t *dest, int pe);
void shmem_int32_atomic_inc(int32_t *dest, int pe);
int32_t shmem_int32_atomic_fetch_add(int32_t *dest, int32_t value, int pe);
void shmem_int32_atomic_add(int32_t *dest, int32_t value, int pe);
int64_t shmem_int64_atomic_compare_swap(int64_t *dest, int64_t cond, int64_t value, int pe);
int64_t shmem_int64_atomic_fetch_inc(int64_t *dest, int pe);
void shmem_int64_atomic_inc(int64_t *dest, int pe);
int64_t shmem_int64_atomic_fetch_add(int64_t *dest, int64_t value, int pe);
void shmem_int64_atomic_add(int64_t *dest, int64_t value, int pe);
uint32_t shmem_uint32_atomic_compare_swap(uint32_t *dest, uint32_t cond, uint32_t value, int pe);
uint32_t shmem_uint32_atomic_fetch_inc(uint32_t *dest, int pe);
void shmem_uint32_atomic_inc(uint32_t *dest, int pe);
uint32_t shmem_uint32_atomic_fetch_add(uint32_t *dest, uint32_t value, int pe);
void shmem_uint32_atomic_add(uint32_t *dest, uint32_t value, int pe);
uint64_t shmem_uint64_atomic_compare_swap(uint64_t *dest, uint64_t cond, uint64_t value, int pe);
uint64_t shmem_uint64_atomic_fetch_inc(uint64_t *dest, int pe);
void shmem_uint64_atomic_inc(uint64_t *dest, int pe);
uint64_t shmem_uint64_atomic_fetch_add(uint64_t *dest, uint64_t value, int pe);
void shmem_uint64_atomic_add(uint64_t *dest, uint64_t value, int pe);
size_t shmem_size_atomic_compare_swap(size_t *dest, size_t cond, size_t value, int pe);
size_t shmem_size_atomic_fetch_inc(size_t *dest, int pe);
void shmem_size_atomic_inc(size_t *dest, int pe);
size_t shmem_size_atomic_fetch_add(size_t *dest, size_t value, int pe);
void shmem_size_atomic_add(size_t *dest, size_t value, int pe);
ptrdiff_t shmem_ptrdiff_atomic_compare_swap(ptrdiff_t *dest, ptrdiff_t cond, ptrdiff_t value, int pe);
ptrdiff_t shmem_ptrdiff_atomic_fetch_inc(ptrdiff_t *dest, int pe);
void shmem_ptrdiff_atomic_inc(ptrdiff_t *dest, int pe);
ptrdiff_t shmem_ptrdiff_atomic_fetch_add(ptrdiff_t *dest, ptrdiff_t value, int pe);
void shmem_ptrdiff_atomic_add(ptrdiff_t *dest, ptrdiff_t value, int pe);
unsigned int shmem_uint_atomic_fetch_and(unsigned int *dest, unsigned int value, int pe);
void shmem_uint_atomic_and(unsigned int *dest, unsigned int value, int pe);
unsigned int shmem_uint_atomic_fetch_or(unsigned int *dest, unsigned int value, int pe);
void shmem_uint_atomic_or(unsigned int *dest, unsigned int value, int pe);
unsigned int shmem_uint_atomic_fetch_xor(unsigned int *dest, unsigned int value, int pe);
void shmem_uint_atomic_xor(unsigned int *dest, unsigned int value, int pe);
unsigned long shmem_ulong_atomic_fetch_and(unsigned long *dest, unsigned long value, int pe);
void shmem_ulong_atomic_and(unsigned long *dest, unsigned long value, int pe);
unsigned long shmem_ulong_atomic_fetch_or(unsigned long *dest, unsigned long value, int pe);
void shmem_ulong_atomic_or(unsigned long *dest, unsigned long value, int pe);
unsigned long shmem_ulong_atomic_fetch_xor(unsigned long *dest, unsigned long value, int pe);
void shmem_ulong_atomic_xor(unsigned long *dest, unsigned long value, int pe);
unsigned long long shmem_ulonglong_atomic_fetch_and(unsigned long long *dest, unsigned long long value, int pe);
void shmem_ulonglong_atomic_and(unsigned long long *dest, unsigned long long value, int pe);
unsigned long long shmem_ulonglong_atomic_fetch_or(unsigned long long *dest, unsigned long long value, int pe);
void shmem_ulonglong_atomic_or(unsigned long long *dest, unsigned long long value, int pe);
unsigned long long shmem_ulonglong_atomic_fetch_xor(unsigned long long *dest, unsigned long long value, int pe);
void shmem_ulonglong_atomic_xor(unsigned long long *dest, unsigned long long value, int pe);
int32_t shmem_int32_atomic_fetch_and(int32_t *dest, int32_t value, int pe);
void shmem_int32_atomic_and(int32_t *dest, int32_t value, int pe);
int32_t shmem_int32_atomic_fetch_or(int32_t *dest, int32_t value, int pe);
void shmem_int32_atomic_or(int32_t *dest, int32_t value, int pe);
int32_t shmem_int32_atomic_fetch_xor(int32_t *dest, int32_t value, int pe);
void shmem_int32_atomic_xor(int32_t *dest, int32_t value, int pe);
int64_t shmem_int64_atomic_fetch_and(int64_t *dest, int64_t value, int pe);
void shmem_int64_atomic_and(int64_t *dest, int64_t value, int pe);
int64_t shmem_int64_atomic_fetch_or(int64_t *dest, int64_t value, int pe);
void shmem_int64_atomic_or(int64_t *dest, int64_t value, int pe);
int64_t shmem_int64_atomic_fetch_xor(int64_t *dest, int64_t value, int pe);
void shmem_int64_atomic_xor(int64_t *dest, int64_t value, int pe);
uint32_t shmem_uint32_atomic_fetch_and(uint32_t *dest, uint32_t value, int pe);
void shmem_uint32_atomic_and(uint32_t *dest, uint32_t value, int pe);
uint32_t shmem_uint32_atomic_fetch_or(uint32_t *dest, uint32_t value, int pe);
void shmem_uint32_atomic_or(uint32_t *dest, uint32_t value, int pe);
uint32_t shmem_uint32_atomic_fetch_xor(uint32_t *dest, uint32_t value, int pe);
void shmem_uint32_atomic_xor(uint32_t *dest, uint32_t value, int pe);
uint64_t shmem_uint64_atomic_fetch_and(uint64_t *dest, uint64_t value, int pe);
void shmem_uint64_atomic_and(uint64_t *dest, uint64_t value, int pe);
uint64_t shmem_uint64_atomic_fetch_or(uint64_t *dest, uint64_t value, int pe);
void shmem_uint64_atomic_or(uint64_t *dest, uint64_t value, int pe);
uint64_t shmem_uint64_atomic_fetch_xor(uint64_t *dest, uint64_t value, int pe);
void shmem_uint64_atomic_xor(uint64_t *dest, uint64_t value, int pe);

/* Collectives (on SHMEM_TEAM_WORLD or SHMEM_TEAM_SHARED). */
int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root);
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
int shmem_float_broadcast(shmem_team_t team, float *dest, const float *source, size_t nelems, int PE_root);
int shmem_float_collect(shmem_team_t team, float *dest, const float *source, size_t nelems);
int shmem_float_fcollect(shmem_team_t team, float *dest, const float *source, size_t nelems);
int shmem_float_alltoall(shmem_team_t team, float *dest, const float *source, size_t nelems);
int shmem_float_alltoalls(shmem_team_t team, float *dest, const float *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
int shmem_double_broadcast(shmem_team_t team, double *dest, const double *source, size_t nelems, int PE_root);
int shmem_double_collect(shmem_team_t team, double *dest, const double *source, size_t nelems);
int shmem_double_fcollect(shmem_team_t team, double *dest, const double *source, size_t nelems);
int shmem_double_alltoall(shmem_team_t team, double *dest, const double *source, size_t nelems);
int shmem_double_alltoalls(shmem_team_t team, double *dest, const double *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
int shmem_longdouble_broadcast(shmem_team_t team, long double *dest, const long double *source, size_t nelems, int PE_root);
int shmem_longdouble_collect(shmem_team_t team, long double *dest, const long double *source, size_t nelems);
int shmem_longdouble_fcollect(shmem_team_t team, long double *dest, const long double *source, size_t nelems);
int shmem_longdouble_alltoall(shmem_team_t team, long double *dest, const long double *source, size_t nelems);
int shmem_longdouble_alltoalls(shmem_team_t team, long double *dest, const long double *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
int shmem_char_broadcast(shmem_team_t team, char *dest, const char *source, size_t nelems, int PE_root);
int shmem_char_collect(shmem_team_t team, char *dest, const char *source, size_t nelems);
int shmem_char_fcollect(shmem_team_t team, char *dest, const char *source, size_t nelems);
int shmem_char_alltoall(shmem_team_t team, char *dest, const char *source, size_t nelems);
int shmem_char_alltoalls(shmem_team_t team, char *dest, const char *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
int shmem_schar_broadcast(shmem_team_t team, signed char *dest, const signed char *source, size_t nelems, int PE_root);
int shmem_schar_collect(shmem_team_t team, signed char *dest, const signed char *source, size_t nelems);
int shmem_schar_fcollect(shmem_team_t team, signed char *dest, const signed char *source, size_t nelems);
int shmem_schar_alltoall(shmem_team_t team, signed char *dest, const signed char *source, size_t nelems);
int shmem_schar_alltoalls(shmem_team_t team, signed char *dest, const signed char *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
int shmem_short_broadcast(shmem_team_t team, short *dest, const short *source, size_t nelems, int PE_root);
int shmem_short_collect(shmem_team_t team, short *dest, const short *source, size_t nelems);
int shmem_short_fcollect(shmem_team_t team, short *dest, const short *source, size_t nelems);
int shmem_short_alltoall(shmem_team_t team, short *dest, const short *source, size_t nelems);
int shmem_short_alltoalls(shmem_team_t team, short *dest, const short *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
int shmem_int_broadcast(shmem_team_t team, int *dest, const int *source, size_t nelems, int PE_root);
int shmem_int_collect(shmem_team_t team, int *dest, const int *source, size_t nelems);
int shmem_int_fcollect(shmem_team_t team, int *dest, const int *source, size_t nelems);
int shmem_int_alltoall(shmem_team_t team, int *dest, const int *source, size_t nelems);
int shmem_int_alltoalls(shmem_team_t team, int *dest, const int *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
int shmem_long_broadcast(shmem_team_t team, long *dest, const long *source, size_t nelems, int PE_root);
int shmem_long_collect(shmem_team_t team, long *dest, const long *source, size_t nelems);
int shmem_long_fcollect(shmem_team_t team, long *dest, const long *source, size_t nelems);
int shmem_long_alltoall(shmem_team_t team, long *dest, const long *source, size_t nelems);
int shmem_long_alltoalls(shmem_team_t team, long *dest, const long *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
int shmem_longlong_broadcast(shmem_team_t team, long long *dest, const long long *source, size_t nelems, int PE_root);
int shmem_longlong_collect(shmem_team_t team, long long *dest, const long long *source, size_t nelems);
int shmem_longlong_fcollect(shmem_team_t team, long long *dest, const long long *source, size_t nelems);
int shmem_longlong_alltoall(shmem_team_t team, long long *dest, const long long *source, size_t nelems);
int shmem_longlong_alltoalls(shmem_team_t team, long long *dest, const long long *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
int shmem_uchar_broadcast(shmem_team_t team, unsigned char *dest, const unsigned char *source, size_t nelems, int PE_root);
int shmem_uchar_collect(shmem_team_t team, unsigned char *dest, const unsigned char *source, size_t nelems);
int shmem_uchar_fcollect(shmem_team_t team, unsigned char *dest, const unsigned char *source, size_t nelems);
int shmem_uchar_alltoall(shmem_team_t team, unsigned char *dest, const unsigned char *source, size_t nelems);
int shmem_uchar_alltoalls(shmem_team_t team, unsigned char *dest, const unsigned char *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
int shmem_ushort_broadcast(shmem_team_t team, unsigned short *dest, const unsigned short *source, size_t nelems, int PE_root);
int shmem_ushort_collect(shmem_team_t team, unsigned short *dest, const unsigned short *source, size_t nelems);
int shmem_ushort_fcollect(shmem_team_t team, unsigned short *dest, const unsigned short *source, size_t nelems);
int shmem_ushort_alltoall(shmem_team_t team, unsigned short *dest, const unsigned short *source, size_t nelems);
int shmem_ushort_alltoalls(shmem_team_t team, unsigned short *dest, const unsigned short *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
int shmem_uint_broadcast(shmem_team_t team, unsigned int *dest, const unsigned int *source, size_t nelems, int PE_root);
int shmem_uint_collect(shmem_team_t team, unsigned int *dest, const unsigned int *source, size_t nelems);
int shmem_uint_fcollect(shmem_team_t team, unsigned int *dest, const unsigned int *source, size_t nelems);
int shmem_uint_alltoall(shmem_team_t team, unsigned int *dest, const unsigned int *source, size_t nelems);
int shmem_uint_alltoalls(shmem_team_t team, unsigned int *dest, const unsigned int *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
int shmem_ulong_broadcast(shmem_team_t team, unsigned long *dest, const unsigned long *source, size_t nelems, int PE_root);
int shmem_ulong_collect(shmem_team_t team, unsigned long *dest, const unsigned long *source, size_t nelems);
int shmem_ulong_fcollect(shmem_team_t team, unsigned long *dest, const unsigned long *source, size_t nelems);
int shmem_ulong_alltoall(shmem_team_t team, unsigned long *dest, const unsigned long *source, size_t nelems);
int shmem_ulong_alltoalls(shmem_team_t team, unsigned long *dest, const unsigned long *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
int shmem_ulonglong_broadcast(shmem_team_t team, unsigned long long *dest, const unsigned long long *source, size_t nelems, int PE_root);
int shmem_ulonglong_collect(shmem_team_t team, unsigned long long *dest, const unsigned long long *source, size_t nelems);
int shmem_ulonglong_fcollect(shmem_team_t team, unsigned long long *dest, const unsigned long long *source, size_t nelems);
int shmem_ulonglong_alltoall(shmem_team_t team, unsigned long long *dest, const unsigned long long *source, size_t nelems);
int shmem_ulonglong_alltoalls(shmem_team_t team, unsigned long long *dest, const unsigned long long *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
int shmem_int8_broadcast(shmem_team_t team, int8_t *dest, const int8_t *source, size_t nelems, int PE_root);
int shmem_int8_collect(shmem_team_t team, int8_t *dest, const int8_t *source, size_t nelems);
int shmem_int8_fcollect(shmem_team_t team, int8_t *dest, const int8_t *source, size_t nelems);
int shmem_int8_alltoall(shmem_team_t team, int8_t *dest, const int8_t *source, size_t nelems);
int shmem_int8_alltoalls(shmem_team_t team, int8_t *dest, const int8_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
int shmem_int16_broadcast(shmem_team_t team, int16_t *dest, const int16_t *source, size_t nelems, int PE_root);
int shmem_int16_collect(shmem_team_t team, int16_t *dest, const int16_t *source, size_t nelems);
int shmem_int16_fcollect(shmem_team_t team, int16_t *dest, const int16_t *source, size_t nelems);
int shmem_int16_alltoall(shmem_team_t team, int16_t *dest, const int16_t *source, size_t nelems);
int shmem_int16_alltoalls(shmem_team_t team, int16_t *dest, const int16_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
int shmem_int32_broadcast(shmem_team_t team, int32_t *dest, const int32_t *source, size_t nelems, int PE_root);
int shmem_int32_collect(shmem_team_t team, int32_t *dest, const int32_t *source, size_t nelems);
int shmem_int32_fcollect(shmem_team_t team, int32_t *dest, const int32_t *source, size_t nelems);
int shmem_int32_alltoall(shmem_team_t team, int32_t *dest, const int32_t *source, size_t nelems);
int shmem_int32_alltoalls(shmem_team_t team, int32_t *dest, const int32_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
int shmem_int64_broadcast(shmem_team_t team, int64_t *dest, const int64_t *source, size_t nelems, int PE_root);
int shmem_int64_collect(shmem_team_t team, int64_t *dest, const int64_t *source, size_t nelems);
int shmem_int64_fcollect(shmem_team_t team, int64_t *dest, const int64_t *source, size_t nelems);
int shmem_int64_alltoall(shmem_team_t team, int64_t *dest, const int64_t *source, size_t nelems);
int shmem_int64_alltoalls(shmem_team_t team, int64_t *dest, const int64_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
int shmem_uint8_broadcast(shmem_team_t team, uint8_t *dest, const uint8_t *source, size_t nelems, int PE_root);
int shmem_uint8_collect(shmem_team_t team, uint8_t *dest, const uint8_t *source, size_t nelems);
int shmem_uint8_fcollect(shmem_team_t team, uint8_t *dest, const uint8_t *source, size_t nelems);
int shmem_uint8_alltoall(shmem_team_t team, uint8_t *dest, const uint8_t *source, size_t nelems);
int shmem_uint8_alltoalls(shmem_team_t team, uint8_t *dest, const uint8_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
int shmem_uint16_broadcast(shmem_team_t team, uint16_t *dest, const uint16_t *source, size_t nelems, int PE_root);
int shmem_uint16_collect(shmem_team_t team, uint16_t *dest, const uint16_t *source, size_t nelems);
int shmem_uint16_fcollect(shmem_team_t team, uint16_t *dest, const uint16_t *source, size_t nelems);
int shmem_uint16_alltoall(shmem_team_t team, uint16_t *dest, const uint16_t *source, size_t nelems);
int shmem_uint16_alltoalls(shmem_team_t team, uint16_t *dest, const uint16_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
int shmem_uint32_broadcast(shmem_team_t team, uint32_t *dest, const uint32_t *source, size_t nelems, int PE_root);
int shmem_uint32_collect(shmem_team_t team, uint32_t *dest, const uint32_t *source, size_t nelems);
int shmem_uint32_fcollect(shmem_team_t team, uint32_t *dest, const uint32_t *source, size_t nelems);
int shmem_uint32_alltoall(shmem_team_t team, uint32_t *dest, const uint32_t *source, size_t nelems);
int shmem_uint32_alltoalls(shmem_team_t team, uint32_t *dest, const uint32_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
int shmem_uint64_broadcast(shmem_team_t team, uint64_t *dest, const uint64_t *source, size_t nelems, int PE_root);
int shmem_uint64_collect(shmem_team_t team, uint64_t *dest, const uint64_t *source, size_t nelems);
int shmem_uint64_fcollect(shmem_team_t team, uint64_t *dest, const uint64_t *source, size_t nelems);
int shmem_uint64_alltoall(shmem_team_t team, uint64_t *dest, const uint64_t *source, size_t nelems);
int shmem_uint64_alltoalls(shmem_team_t team, uint64_t *dest, const uint64_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
int shmem_size_broadcast(shmem_team_t team, size_t *dest, const size_t *source, size_t nelems, int PE_root);
int shmem_size_collect(shmem_team_t team, size_t *dest, const size_t *source, size_t nelems);
int shmem_size_fcollect(shmem_team_t team, size_t *dest, const size_t *source, size_t nelems);
int shmem_size_alltoall(shmem_team_t team, size_t *dest, const size_t *source, size_t nelems);
int shmem_size_alltoalls(shmem_team_t team, size_t *dest, const size_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
int shmem_ptrdiff_broadcast(shmem_team_t team, ptrdiff_t *dest, const ptrdiff_t *source, size_t nelems, int PE_root);
int shmem_ptrdiff_collect(shmem_team_t team, ptrdiff_t *dest, const ptrdiff_t *source, size_t nelems);
int shmem_ptrdiff_fcollect(shmem_team_t team, ptrdiff_t *dest, const ptrdiff_t *source, size_t nelems);
int shmem_ptrdiff_alltoall(shmem_team_t team, ptrdiff_t *dest, const ptrdiff_t *source, size_t nelems);
int shmem_ptrdiff_alltoalls(shmem_team_t team, ptrdiff_t *dest, const ptrdiff_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
int shmem_uchar_and_reduce(shmem_team_t team, unsigned char *dest, const unsigned char *source, size_t nreduce);
int shmem_uchar_or_reduce(shmem_team_t team, unsigned char *dest, const unsigned char *source, size_t nreduce);
int shmem_uchar_xor_reduce(shmem_team_t team, unsigned char *dest, const unsigned char *source, size_t nreduce);
int shmem_ushort_and_reduce(shmem_team_t team, unsigned short *dest, const unsigned short *source, size_t nreduce);
int shmem_ushort_or_reduce(shmem_team_t team, unsigned short *dest, const unsigned short *source, size_t nreduce);
int shmem_ushort_xor_reduce(shmem_team_t team, unsigned short *dest, const unsigned short *source, size_t nreduce);
int shmem_uint_and_reduce(shmem_team_t team, unsigned int *dest, const unsigned int *source, size_t nreduce);
int shmem_uint_or_reduce(shmem_team_t team, unsigned int *dest, const unsigned int *source, size_t nreduce);
int shmem_uint_xor_reduce(shmem_team_t team, unsigned int *dest, const unsigned int *source, size_t nreduce);
int shmem_ulong_and_reduce(shmem_team_t team, unsigned long *dest, const unsigned long *source, size_t nreduce);
int shmem_ulong_or_reduce(shmem_team_t team, unsigned long *dest, const unsigned long *source, size_t nreduce);
int shmem_ulong_xor_reduce(shmem_team_t team, unsigned long *dest, const unsigned long *source, size_t nreduce);
int shmem_ulonglong_and_reduce(shmem_team_t team, unsigned long long *dest, const unsigned long long *source, size_t nreduce);
int shmem_ulonglong_or_reduce(shmem_team_t team, unsigned long long *dest, const unsigned long long *source, size_t nreduce);
int shmem_ulonglong_xor_reduce(shmem_team_t team, unsigned long long *dest, const unsigned long long *source, size_t nreduce);
int shmem_int8_and_reduce(shmem_team_t team, int8_t *dest, const int8_t *source, size_t nreduce);
int shmem_int8_or_reduce(shmem_team_t team, int8_t *dest, const int8_t *source, size_t nreduce);
int shmem_int8_xor_reduce(shmem_team_t team, int8_t *dest, const int8_t *source, size_t nreduce);
int shmem_int16_and_reduce(shmem_team_t team, int16_t *dest, const int16_t *source, size_t nreduce);
int shmem_int16_or_reduce(shmem_team_t team, int16_t *dest, const int16_t *source, size_t nreduce);
int shmem_int16_xor_reduce(shmem_team_t team, int16_t *dest, const int16_t *source, size_t nreduce);
int shmem_int32_and_reduce(shmem_team_t team, int32_t *dest, const int32_t *source, size_t nreduce);
int shmem_int32_or_reduce(shmem_team_t team, int32_t *dest, const int32_t *source, size_t nreduce);
int shmem_int32_xor_reduce(shmem_team_t team, int32_t *dest, const int32_t *source, size_t nreduce);
int shmem_int64_and_reduce(shmem_team_t team, int64_t *dest, const int64_t *source, size_t nreduce);
int shmem_int64_or_reduce(shmem_team_t team, int64_t *dest, const int64_t *source, size_t nreduce);
int shmem_int64_xor_reduce(shmem_team_t team, int64_t *dest, const int64_t *source, size_t nreduce);
int shmem_uint8_and_reduce(shmem_team_t team, uint8_t *dest, const uint8_t *source, size_t nreduce);
int shmem_uint8_or_reduce(shmem_team_t team, uint8_t *dest, const uint8_t *source, size_t nreduce);
int shmem_uint8_xor_reduce(shmem_team_t team, uint8_t *dest, const uint8_t *source, size_t nreduce);
int shmem_uint16_and_reduce(shmem_team_t team, uint16_t *dest, const uint16_t *source, size_t nreduce);
int shmem_uint16_or_reduce(shmem_team_t team, uint16_t *dest, const uint16_t *source, size_t nreduce);
int shmem_uint16_xor_reduce(shmem_team_t team, uint16_t *dest, const uint16_t *source, size_t nreduce);
int shmem_uint32_and_reduce(shmem_team_t team, uint32_t *dest, const uint32_t *source, size_t nreduce);
int shmem_uint32_or_reduce(shmem_team_t team, uint32_t *dest, const uint32_t *source, size_t nreduce);
int shmem_uint32_xor_reduce(shmem_team_t team, uint32_t *dest, const uint32_t *source, size_t nreduce);
int shmem_uint64_and_reduce(shmem_team_t team, uint64_t *dest, const uint64_t *source, size_t nreduce);
int shmem_uint64_or_reduce(shmem_team_t team, uint64_t *dest, const uint64_t *source, size_t nreduce);
int shmem_uint64_xor_reduce(shmem_team_t team, uint64_t *dest, const uint64_t *source, size_t nreduce);
int shmem_size_and_reduce(shmem_team_t team, size_t *dest, const size_t *source, size_t nreduce);
int shmem_size_or_reduce(shmem_team_t team, size_t *dest, const size_t *source, size_t nreduce);
int shmem_size_xor_reduce(shmem_team_t team, size_t *dest, const size_t *source, size_t nreduce);
int shmem_char_max_reduce(shmem_team_t team, char *dest, const char *source, size_t nreduce);
int shmem_char_min_reduce(shmem_team_t team, char *dest, const char *source, size_t nreduce);
int shmem_char_sum_reduce(shmem_team_t team, char *dest, const char *source, size_t nreduce);
int shmem_char_prod_reduce(shmem_team_t team, char *dest, const char *source, size_t nreduce);
int shmem_schar_max_reduce(shmem_team_t team, signed char *dest, const signed char *source, size_t nreduce);
int shmem_schar_min_reduce(shmem_team_t team, signed char *dest, const signed char *source, size_t nreduce);
int shmem_schar_sum_reduce(shmem_team_t team, signed char *dest, const signed char *source, size_t nreduce);
int shmem_schar_prod_reduce(shmem_team_t team, signed char *dest, const signed char *source, size_t nreduce);
int shmem_short_max_reduce(shmem_team_t team, short *dest, const short *source, size_t nreduce);
int shmem_short_min_reduce(shmem_team_t team, short *dest, const short *source, size_t nreduce);
int shmem_short_sum_reduce(shmem_team_t team, short *dest, const short *source, size_t nreduce);
int shmem_short_prod_reduce(shmem_team_t team, short *dest, const short *source, size_t nreduce);
int shmem_int_max_reduce(shmem_team_t team, int *dest, const int *source, size_t nreduce);
int shmem_int_min_reduce(shmem_team_t team, int *dest, const int *source, size_t nreduce);
int shmem_int_sum_reduce(shmem_team_t team, int *dest, const int *source, size_t nreduce);
int shmem_int_prod_reduce(shmem_team_t team, int *dest, const int *source, size_t nreduce);
int shmem_long_max_reduce(shmem_team_t team, long *dest, const long *source, size_t nreduce);
int shmem_long_min_reduce(shmem_team_t team, long *dest, const long *source, size_t nreduce);
int shmem_long_sum_reduce(shmem_team_t team, long *dest, const long *source, size_t nreduce);
int shmem_long_prod_reduce(shmem_team_t team, long *dest, const long *source, size_t nreduce);
int shmem_longlong_max_reduce(shmem_team_t team, long long *dest, const long long *source, size_t nreduce);
int shmem_longlong_min_reduce(shmem_team_t team, long long *dest, const long long *source, size_t nreduce);
int shmem_longlong_sum_reduce(shmem_team_t team, long long *dest, const long long *source, size_t nreduce);
int shmem_longlong_prod_reduce(shmem_team_t team, long long *dest, const long long *source, size_t nreduce);
int shmem_ptrdiff_max_reduce(shmem_team_t team, ptrdiff_t *dest, const ptrdiff_t *source, size_t nreduce);
int shmem_ptrdiff_min_reduce(shmem_team_t team, ptrdiff_t *dest, const ptrdiff_t *source, size_t nreduce);
int shmem_ptrdiff_sum_reduce(shmem_team_t team, ptrdiff_t *dest, const ptrdiff_t *source, size_t nreduce);
int shmem_ptrdiff_prod_reduce(shmem_team_t team, ptrdiff_t *dest, const ptrdiff_t *source, size_t nreduce);
int shmem_uchar_max_reduce(shmem_team_t team, unsigned char *dest, const unsigned char *source, size_t nreduce);
int shmem_uchar_min_reduce(shmem_team_t team, unsigned char *dest, const unsigned char *source, size_t nreduce);
int shmem_uchar_sum_reduce(shmem_team_t team, unsigned char *dest, const unsigned char *source, size_t nreduce);
int shmem_uchar_prod_reduce(shmem_team_t team, unsigned char *dest, const unsigned char *source, size_t nreduce);
int shmem_ushort_max_reduce(shmem_team_t team, unsigned short *dest, const unsigned short *source, size_t nreduce);
int shmem_ushort_min_reduce(shmem_team_t team, unsigned short *dest, const unsigned short *source, size_t nreduce);
int shmem_ushort_sum_reduce(shmem_team_t team, unsigned short *dest, const unsigned short *source, size_t nreduce);
int shmem_ushort_prod_reduce(shmem_team_t team, unsigned short *dest, const unsigned short *source, size_t nreduce);
int shmem_uint_max_reduce(shmem_team_t team, unsigned int *dest, const unsigned int *source, size_t nreduce);
int shmem_uint_min_reduce(shmem_team_t team, unsigned int *dest, const unsigned int *source, size_t nreduce);
int shmem_uint_sum_reduce(shmem_team_t team, unsigned int *dest, const unsigned int *source, size_t nreduce);
int shmem_uint_prod_reduce(shmem_team_t team, unsigned int *dest, const unsigned int *source, size_t nreduce);
int shmem_ulong_max_reduce(shmem_team_t team, unsigned long *dest, const unsigned long *source, size_t nreduce);
int shmem_ulong_min_reduce(shmem_team_t team, unsigned long *dest, const unsigned long *source, size_t nreduce);
int shmem_ulong_sum_reduce(shmem_team_t team, unsigned long *dest, const unsigned long *source, size_t nreduce);
int shmem_ulong_prod_reduce(shmem_team_t team, unsigned long *dest, const unsigned long *source, size_t nreduce);
int shmem_ulonglong_max_reduce(shmem_team_t team, unsigned long long *dest, const unsigned long long *source, size_t nreduce);
int shmem_ulonglong_min_reduce(shmem_team_t team, unsigned long long *dest, const unsigned long long *source, size_t nreduce);
int shmem_ulonglong_sum_reduce(shmem_team_t team, unsigned long long *dest, const unsigned long long *source, size_t nreduce);
int shmem_ulonglong_prod_reduce(shmem_team_t team, unsigned long long *dest, const unsigned long long *source, size_t nreduce);
int shmem_int8_max_reduce(shmem_team_t team, int8_t *dest, const int8_t *source, size_t nreduce);
int shmem_int8_min_reduce(shmem_team_t team, int8_t *dest, const int8_t *source, size_t nreduce);
int shmem_int8_sum_reduce(shmem_team_t team, int8_t *dest, const int8_t *source, size_t nreduce);
int shmem_int8_prod_reduce(shmem_team_t team, int8_t *dest, const int8_t *source, size_t nreduce);
int shmem_int16_max_reduce(shmem_team_t team, int16_t *dest, const int16_t *source, size_t nreduce);
int shmem_int16_min_reduce(shmem_team_t team, int16_t *dest, const int16_t *source, size_t nreduce);
int shmem_int16_sum_reduce(shmem_team_t team, int16_t *dest, const int16_t *source, size_t nreduce);
int shmem_int16_prod_reduce(shmem_team_t team, int16_t *dest, const int16_t *source, size_t nreduce);
int shmem_int32_max_reduce(shmem_team_t team, int32_t *dest, const int32_t *source, size_t nreduce);
int shmem_int32_min_reduce(shmem_team_t team, int32_t *dest, const int32_t *source, size_t nreduce);
int shmem_int32_sum_reduce(shmem_team_t team, int32_t *dest, const int32_t *source, size_t nreduce);
int shmem_int32_prod_reduce(shmem_team_t team, int32_t *dest, const int32_t *source, size_t nreduce);
int shmem_int64_max_reduce(shmem_team_t team, int64_t *dest, const int64_t *source, size_t nreduce);
int shmem_int64_min_reduce(shmem_team_t team, int64_t *dest, const int64_t *source, size_t nreduce);
int shmem_int64_sum_reduce(shmem_team_t team, int64_t *dest, const int64_t *source, size_t nreduce);
int shmem_int64_prod_reduce(shmem_team_t team, int64_t *dest, const int64_t *source, size_t nreduce);
int shmem_uint8_max_reduce(shmem_team_t team, uint8_t *dest, const uint8_t *source, size_t nreduce);
int shmem_uint8_min_reduce(shmem_team_t team, uint8_t *dest, const uint8_t *source, size_t nreduce);
int shmem_uint8_sum_reduce(shmem_team_t team, uint8_t *dest, const uint8_t *source, size_t nreduce);
int shmem_uint8_prod_reduce(shmem_team_t team, uint8_t *dest, const uint8_t *source, size_t nreduce);
int shmem_uint16_max_reduce(shmem_team_t team, uint16_t *dest, const uint16_t *source, size_t nreduce);
int shmem_uint16_min_reduce(shmem_team_t team, uint16_t *dest, const uint16_t *source, size_t nreduce);
int shmem_uint16_sum_reduce(shmem_team_t team, uint16_t *dest, const uint16_t *source, size_t nreduce);
int shmem_uint16_prod_reduce(shmem_team_t team, uint16_t *dest, const uint16_t *source, size_t nreduce);
int shmem_uint32_max_reduce(shmem_team_t team, uint32_t *dest, const uint32_t *source, size_t nreduce);
int shmem_uint32_min_reduce(shmem_team_t team, uint32_t *dest, const uint32_t *source, size_t nreduce);
int shmem_uint32_sum_reduce(shmem_team_t team, uint32_t *dest, const uint32_t *source, size_t nreduce);
int shmem_uint32_prod_reduce(shmem_team_t team, uint32_t *dest, const uint32_t *source, size_t nreduce);
int shmem_uint64_max_reduce(shmem_team_t team, uint64_t *dest, const uint64_t *source, size_t nreduce);
int shmem_uint64_min_reduce(shmem_team_t team, uint64_t *dest, const uint64_t *source, size_t nreduce);
int shmem_uint64_sum_reduce(shmem_team_t team, uint64_t *dest, const uint64_t *source, size_t nreduce);
int shmem_uint64_prod_reduce(shmem_team_t team, uint64_t *dest, const uint64_t *source, size_t nreduce);
int shmem_size_max_reduce(shmem_team_t team, size_t *dest, const size_t *source, size_t nreduce);
int shmem_size_min_reduce(shmem_team_t team, size_t *dest, const size_t *source, size_t nreduce);
int shmem_size_sum_reduce(shmem_team_t team, size_t *dest, const size_t *source, size_t nreduce);
int shmem_size_prod_reduce(shmem_team_t team, size_t *dest, const size_t *source, size_t nreduce);
int shmem_float_max_reduce(shmem_team_t team, float *dest, const float *source, size_t nreduce);
int shmem_float_min_reduce(shmem_team_t team, float *dest, const float *source, size_t nreduce);
int shmem_float_sum_reduce(shmem_team_t team, float *dest, const float *source, size_t nreduce);
int shmem_float_prod_reduce(shmem_team_t team, float *dest, const float *source, size_t nreduce);
int shmem_double_max_reduce(shmem_team_t team, double *dest, const double *source, size_t nreduce);
int shmem_double_min_reduce(shmem_team_t team, double *dest, const double *source, size_t nreduce);
int shmem_double_sum_reduce(shmem_team_t team, double *dest, const double *source, size_t nreduce);
int shmem_double_prod_reduce(shmem_team_t team, double *dest, const double *source, size_t nreduce);
int shmem_longdouble_max_reduce(shmem_team_t team, long double *dest, const long double *source, size_t nreduce);
int shmem_longdouble_min_reduce(shmem_team_t team, long double *dest, const long double *source, size_t nreduce);
int shmem_longdouble_sum_reduce(shmem_team_t team, long double *dest, const long double *source, size_t nreduce);
int shmem_longdouble_prod_reduce(shmem_team_t team, long double *dest, const long double *source, size_t nreduce);
int shmem_complexf_sum_reduce(shmem_team_t team, float _Complex *dest, const float _Complex *source, size_t nreduce);
int shmem_complexf_prod_reduce(shmem_team_t team, float _Complex *dest, const float _Complex *source, size_t nreduce);
int shmem_complexd_sum_reduce(shmem_team_t team, double _Complex *dest, const double _Complex *source, size_t nreduce);
int shmem_complexd_prod_reduce(shmem_team_t team, double _Complex *dest, const double _Complex *source, size_t nreduce);

/* Remote memory access and atomics on a context. */
void shmem_ctx_float_put(shmem_ctx_t ctx, float *dest, const float *source, size_t nelems, int pe);
void shmem_ctx_float_put_nbi(shmem_ctx_t ctx, float *dest, const float *source, size_t nelems, int pe);
void shmem_ctx_float_get(shmem_ctx_t ctx, float *dest, const float *source, size_t nelems, int pe);
void shmem_ctx_float_get_nbi(shmem_ctx_t ctx, float *dest, const float *source, size_t nelems, int pe);
void shmem_ctx_float_iput(shmem_ctx_t ctx, float *dest, const float *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_float_iget(shmem_ctx_t ctx, float *dest, const float *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_float_p(shmem_ctx_t ctx, float *dest, float value, int pe);
float shmem_ctx_float_g(shmem_ctx_t ctx, const float *source, int pe);
void shmem_ctx_double_put(shmem_ctx_t ctx, double *dest, const double *source, size_t nelems, int pe);
void shmem_ctx_double_put_nbi(shmem_ctx_t ctx, double *dest, const double *source, size_t nelems, int pe);
void shmem_ctx_double_get(shmem_ctx_t ctx, double *dest, const double *source, size_t nelems, int pe);
void shmem_ctx_double_get_nbi(shmem_ctx_t ctx, double *dest, const double *source, size_t nelems, int pe);
void shmem_ctx_double_iput(shmem_ctx_t ctx, double *dest, const double *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_double_iget(shmem_ctx_t ctx, double *dest, const double *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_double_p(shmem_ctx_t ctx, double *dest, double value, int pe);
double shmem_ctx_double_g(shmem_ctx_t ctx, const double *source, int pe);
void shmem_ctx_longdouble_put(shmem_ctx_t ctx, long double *dest, const long double *source, size_t nelems, int pe);
void shmem_ctx_longdouble_put_nbi(shmem_ctx_t ctx, long double *dest, const long double *source, size_t nelems, int pe);
void shmem_ctx_longdouble_get(shmem_ctx_t ctx, long double *dest, const long double *source, size_t nelems, int pe);
void shmem_ctx_longdouble_get_nbi(shmem_ctx_t ctx, long double *dest, const long double *source, size_t nelems, int pe);
void shmem_ctx_longdouble_iput(shmem_ctx_t ctx, long double *dest, const long double *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_longdouble_iget(shmem_ctx_t ctx, long double *dest, const long double *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_char_put(shmem_ctx_t ctx, char *dest, const char *source, size_t nelems, int pe);
void shmem_ctx_char_put_nbi(shmem_ctx_t ctx, char *dest, const char *source, size_t nelems, int pe);
void shmem_ctx_char_get(shmem_ctx_t ctx, char *dest, const char *source, size_t nelems, int pe);
void shmem_ctx_char_get_nbi(shmem_ctx_t ctx, char *dest, const char *source, size_t nelems, int pe);
void shmem_ctx_char_iput(shmem_ctx_t ctx, char *dest, const char *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_char_iget(shmem_ctx_t ctx, char *dest, const char *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_char_p(shmem_ctx_t ctx, char *dest, char value, int pe);
char shmem_ctx_char_g(shmem_ctx_t ctx, const char *source, int pe);
void shmem_ctx_schar_put(shmem_ctx_t ctx, signed char *dest, const signed char *source, size_t nelems, int pe);
void shmem_ctx_schar_put_nbi(shmem_ctx_t ctx, signed char *dest, const signed char *source, size_t nelems, int pe);
void shmem_ctx_schar_get(shmem_ctx_t ctx, signed char *dest, const signed char *source, size_t nelems, int pe);
void shmem_ctx_schar_get_nbi(shmem_ctx_t ctx, signed char *dest, const signed char *source, size_t nelems, int pe);
void shmem_ctx_schar_iput(shmem_ctx_t ctx, signed char *dest, const signed char *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_schar_iget(shmem_ctx_t ctx, signed char *dest, const signed char *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_schar_p(shmem_ctx_t ctx, signed char *dest, signed char value, int pe);
signed char shmem_ctx_schar_g(shmem_ctx_t ctx, const signed char *source, int pe);
void shmem_ctx_short_put(shmem_ctx_t ctx, short *dest, const short *source, size_t nelems, int pe);
void shmem_ctx_short_put_nbi(shmem_ctx_t ctx, short *dest, const short *source, size_t nelems, int pe);
void shmem_ctx_short_get(shmem_ctx_t ctx, short *dest, const short *source, size_t nelems, int pe);
void shmem_ctx_short_get_nbi(shmem_ctx_t ctx, short *dest, const short *source, size_t nelems, int pe);
void shmem_ctx_short_iput(shmem_ctx_t ctx, short *dest, const short *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_short_iget(shmem_ctx_t ctx, short *dest, const short *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_short_p(shmem_ctx_t ctx, short *dest, short value, int pe);
short shmem_ctx_short_g(shmem_ctx_t ctx, const short *source, int pe);
void shmem_ctx_int_put(shmem_ctx_t ctx, int *dest, const int *source, size_t nelems, int pe);
void shmem_ctx_int_put_nbi(shmem_ctx_t ctx, int *dest, const int *source, size_t nelems, int pe);
void shmem_ctx_int_get(shmem_ctx_t ctx, int *dest, const int *source, size_t nelems, int pe);
void shmem_ctx_int_get_nbi(shmem_ctx_t ctx, int *dest, const int *source, size_t nelems, int pe);
void shmem_ctx_int_iput(shmem_ctx_t ctx, int *dest, const int *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_int_iget(shmem_ctx_t ctx, int *dest, const int *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_int_p(shmem_ctx_t ctx, int *dest, int value, int pe);
int shmem_ctx_int_g(shmem_ctx_t ctx, const int *source, int pe);
void shmem_ctx_long_put(shmem_ctx_t ctx, long *dest, const long *source, size_t nelems, int pe);
void shmem_ctx_long_put_nbi(shmem_ctx_t ctx, long *dest, const long *source, size_t nelems, int pe);
void shmem_ctx_long_get(shmem_ctx_t ctx, long *dest, const long *source, size_t nelems, int pe);
void shmem_ctx_long_get_nbi(shmem_ctx_t ctx, long *dest, const long *source, size_t nelems, int pe);
void shmem_ctx_long_iput(shmem_ctx_t ctx, long *dest, const long *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_long_iget(shmem_ctx_t ctx, long *dest, const long *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_long_p(shmem_ctx_t ctx, long *dest, long value, int pe);
long shmem_ctx_long_g(shmem_ctx_t ctx, const long *source, int pe);
void shmem_ctx_longlong_put(shmem_ctx_t ctx, long long *dest, const long long *source, size_t nelems, int pe);
void shmem_ctx_longlong_put_nbi(shmem_ctx_t ctx, long long *dest, const long long *source, size_t nelems, int pe);
void shmem_ctx_longlong_get(shmem_ctx_t ctx, long long *dest, const long long *source, size_t nelems, int pe);
void shmem_ctx_longlong_get_nbi(shmem_ctx_t ctx, long long *dest, const long long *source, size_t nelems, int pe);
void shmem_ctx_longlong_iput(shmem_ctx_t ctx, long long *dest, const long long *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_longlong_iget(shmem_ctx_t ctx, long long *dest, const long long *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_longlong_p(shmem_ctx_t ctx, long long *dest, long long value, int pe);
long long shmem_ctx_longlong_g(shmem_ctx_t ctx, const long long *source, int pe);
void shmem_ctx_uchar_put(shmem_ctx_t ctx, unsigned char *dest, const unsigned char *source, size_t nelems, int pe);
void shmem_ctx_uchar_put_nbi(shmem_ctx_t ctx, unsigned char *dest, const unsigned char *source, size_t nelems, int pe);
void shmem_ctx_uchar_get(shmem_ctx_t ctx, unsigned char *dest, const unsigned char *source, size_t nelems, int pe);
void shmem_ctx_uchar_get_nbi(shmem_ctx_t ctx, unsigned char *dest, const unsigned char *source, size_t nelems, int pe);
void shmem_ctx_uchar_iput(shmem_ctx_t ctx, unsigned char *dest, const unsigned char *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_uchar_iget(shmem_ctx_t ctx, unsigned char *dest, const unsigned char *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_uchar_p(shmem_ctx_t ctx, unsigned char *dest, unsigned char value, int pe);
unsigned char shmem_ctx_uchar_g(shmem_ctx_t ctx, const unsigned char *source, int pe);
void shmem_ctx_ushort_put(shmem_ctx_t ctx, unsigned short *dest, const unsigned short *source, size_t nelems, int pe);
void shmem_ctx_ushort_put_nbi(shmem_ctx_t ctx, unsigned short *dest, const unsigned short *source, size_t nelems, int pe);
void shmem_ctx_ushort_get(shmem_ctx_t ctx, unsigned short *dest, const unsigned short *source, size_t nelems, int pe);
void shmem_ctx_ushort_get_nbi(shmem_ctx_t ctx, unsigned short *dest, const unsigned short *source, size_t nelems, int pe);
void shmem_ctx_ushort_iput(shmem_ctx_t ctx, unsigned short *dest, const unsigned short *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_ushort_iget(shmem_ctx_t ctx, unsigned short *dest, const unsigned short *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_ushort_p(shmem_ctx_t ctx, unsigned short *dest, unsigned short value, int pe);
unsigned short shmem_ctx_ushort_g(shmem_ctx_t ctx, const unsigned short *source, int pe);
void shmem_ctx_uint_put(shmem_ctx_t ctx, unsigned int *dest, const unsigned int *source, size_t nelems, int pe);
void shmem_ctx_uint_put_nbi(shmem_ctx_t ctx, unsigned int *dest, const unsigned int *source, size_t nelems, int pe);
void shmem_ctx_uint_get(shmem_ctx_t ctx, unsigned int *dest, const unsigned int *source, size_t nelems, int pe);
void shmem_ctx_uint_get_nbi(shmem_ctx_t ctx, unsigned int *dest, const unsigned int *source, size_t nelems, int pe);
void shmem_ctx_uint_iput(shmem_ctx_t ctx, unsigned int *dest, const unsigned int *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_uint_iget(shmem_ctx_t ctx, unsigned int *dest, const unsigned int *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_uint_p(shmem_ctx_t ctx, unsigned int *dest, unsigned int value, int pe);
unsigned int shmem_ctx_uint_g(shmem_ctx_t ctx, const unsigned int *source, int pe);
void shmem_ctx_ulong_put(shmem_ctx_t ctx, unsigned long *dest, const unsigned long *source, size_t nelems, int pe);
void shmem_ctx_ulong_put_nbi(shmem_ctx_t ctx, unsigned long *dest, const unsigned long *source, size_t nelems, int pe);
void shmem_ctx_ulong_get(shmem_ctx_t ctx, unsigned long *dest, const unsigned long *source, size_t nelems, int pe);
void shmem_ctx_ulong_get_nbi(shmem_ctx_t ctx, unsigned long *dest, const unsigned long *source, size_t nelems, int pe);
void shmem_ctx_ulong_iput(shmem_ctx_t ctx, unsigned long *dest, const unsigned long *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_ulong_iget(shmem_ctx_t ctx, unsigned long *dest, const unsigned long *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_ulong_p(shmem_ctx_t ctx, unsigned long *dest, unsigned long value, int pe);
unsigned long shmem_ctx_ulong_g(shmem_ctx_t ctx, const unsigned long *source, int pe);
void shmem_ctx_ulonglong_put(shmem_ctx_t ctx, unsigned long long *dest, const unsigned long long *source, size_t nelems, int pe);
void shmem_ctx_ulonglong_put_nbi(shmem_ctx_t ctx, unsigned long long *dest, const unsigned long long *source, size_t nelems, int pe);
void shmem_ctx_ulonglong_get(shmem_ctx_t ctx, unsigned long long *dest, const unsigned long long *source, size_t nelems, int pe);
void shmem_ctx_ulonglong_get_nbi(shmem_ctx_t ctx, unsigned long long *dest, const unsigned long long *source, size_t nelems, int pe);
void shmem_ctx_ulonglong_iput(shmem_ctx_t ctx, unsigned long long *dest, const unsigned long long *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_ulonglong_iget(shmem_ctx_t ctx, unsigned long long *dest, const unsigned long long *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_ulonglong_p(shmem_ctx_t ctx, unsigned long long *dest, unsigned long long value, int pe);
unsigned long long shmem_ctx_ulonglong_g(shmem_ctx_t ctx, const unsigned long long *source, int pe);
void shmem_ctx_int8_put(shmem_ctx_t ctx, int8_t *dest, const int8_t *source, size_t nelems, int pe);
void shmem_ctx_int8_put_nbi(shmem_ctx_t ctx, int8_t *dest, const int8_t *source, size_t nelems, int pe);
void shmem_ctx_int8_get(shmem_ctx_t ctx, int8_t *dest, const int8_t *source, size_t nelems, int pe);
void shmem_ctx_int8_get_nbi(shmem_ctx_t ctx, int8_t *dest, const int8_t *source, size_t nelems, int pe);
void shmem_ctx_int8_iput(shmem_ctx_t ctx, int8_t *dest, const int8_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_int8_iget(shmem_ctx_t ctx, int8_t *dest, const int8_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_int8_p(shmem_ctx_t ctx, int8_t *dest, int8_t value, int pe);
int8_t shmem_ctx_int8_g(shmem_ctx_t ctx, const int8_t *source, int pe);
void shmem_ctx_int16_put(shmem_ctx_t ctx, int16_t *dest, const int16_t *source, size_t nelems, int pe);
void shmem_ctx_int16_put_nbi(shmem_ctx_t ctx, int16_t *dest, const int16_t *source, size_t nelems, int pe);
void shmem_ctx_int16_get(shmem_ctx_t ctx, int16_t *dest, const int16_t *source, size_t nelems, int pe);
void shmem_ctx_int16_get_nbi(shmem_ctx_t ctx, int16_t *dest, const int16_t *source, size_t nelems, int pe);
void shmem_ctx_int16_iput(shmem_ctx_t ctx, int16_t *dest, const int16_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_int16_iget(shmem_ctx_t ctx, int16_t *dest, const int16_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_int16_p(shmem_ctx_t ctx, int16_t *dest, int16_t value, int pe);
int16_t shmem_ctx_int16_g(shmem_ctx_t ctx, const int16_t *source, int pe);
void shmem_ctx_int32_put(shmem_ctx_t ctx, int32_t *dest, const int32_t *source, size_t nelems, int pe);
void shmem_ctx_int32_put_nbi(shmem_ctx_t ctx, int32_t *dest, const int32_t *source, size_t nelems, int pe);
void shmem_ctx_int32_get(shmem_ctx_t ctx, int32_t *dest, const int32_t *source, size_t nelems, int pe);
void shmem_ctx_int32_get_nbi(shmem_ctx_t ctx, int32_t *dest, const int32_t *source, size_t nelems, int pe);
void shmem_ctx_int32_iput(shmem_ctx_t ctx, int32_t *dest, const int32_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_int32_iget(shmem_ctx_t ctx, int32_t *dest, const int32_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_int32_p(shmem_ctx_t ctx, int32_t *dest, int32_t value, int pe);
int32_t shmem_ctx_int32_g(shmem_ctx_t ctx, const int32_t *source, int pe);
void shmem_ctx_int64_put(shmem_ctx_t ctx, int64_t *dest, const int64_t *source, size_t nelems, int pe);
void shmem_ctx_int64_put_nbi(shmem_ctx_t ctx, int64_t *dest, const int64_t *source, size_t nelems, int pe);
void shmem_ctx_int64_get(shmem_ctx_t ctx, int64_t *dest, const int64_t *source, size_t nelems, int pe);
void shmem_ctx_int64_get_nbi(shmem_ctx_t ctx, int64_t *dest, const int64_t *source, size_t nelems, int pe);
void shmem_ctx_int64_iput(shmem_ctx_t ctx, int64_t *dest, const int64_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_int64_iget(shmem_ctx_t ctx, int64_t *dest, const int64_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_int64_p(shmem_ctx_t ctx, int64_t *dest, int64_t value, int pe);
int64_t shmem_ctx_int64_g(shmem_ctx_t ctx, const int64_t *source, int pe);
void shmem_ctx_uint8_put(shmem_ctx_t ctx, uint8_t *dest, const uint8_t *source, size_t nelems, int pe);
void shmem_ctx_uint8_put_nbi(shmem_ctx_t ctx, uint8_t *dest, const uint8_t *source, size_t nelems, int pe);
void shmem_ctx_uint8_get(shmem_ctx_t ctx, uint8_t *dest, const uint8_t *source, size_t nelems, int pe);
void shmem_ctx_uint8_get_nbi(shmem_ctx_t ctx, uint8_t *dest, const uint8_t *source, size_t nelems, int pe);
void shmem_ctx_uint8_iput(shmem_ctx_t ctx, uint8_t *dest, const uint8_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_uint8_iget(shmem_ctx_t ctx, uint8_t *dest, const uint8_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_uint8_p(shmem_ctx_t ctx, uint8_t *dest, uint8_t value, int pe);
uint8_t shmem_ctx_uint8_g(shmem_ctx_t ctx, const uint8_t *source, int pe);
void shmem_ctx_uint16_put(shmem_ctx_t ctx, uint16_t *dest, const uint16_t *source, size_t nelems, int pe);
void shmem_ctx_uint16_put_nbi(shmem_ctx_t ctx, uint16_t *dest, const uint16_t *source, size_t nelems, int pe);
void shmem_ctx_uint16_get(shmem_ctx_t ctx, uint16_t *dest, const uint16_t *source, size_t nelems, int pe);
void shmem_ctx_uint16_get_nbi(shmem_ctx_t ctx, uint16_t *dest, const uint16_t *source, size_t nelems, int pe);
void shmem_ctx_uint16_iput(shmem_ctx_t ctx, uint16_t *dest, const uint16_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_uint16_iget(shmem_ctx_t ctx, uint16_t *dest, const uint16_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_uint16_p(shmem_ctx_t ctx, uint16_t *dest, uint16_t value, int pe);
uint16_t shmem_ctx_uint16_g(shmem_ctx_t ctx, const uint16_t *source, int pe);
void shmem_ctx_uint32_put(shmem_ctx_t ctx, uint32_t *dest, const uint32_t *source, size_t nelems, int pe);
void shmem_ctx_uint32_put_nbi(shmem_ctx_t ctx, uint32_t *dest, const uint32_t *source, size_t nelems, int pe);
void shmem_ctx_uint32_get(shmem_ctx_t ctx, uint32_t *dest, const uint32_t *source, size_t nelems, int pe);
void shmem_ctx_uint32_get_nbi(shmem_ctx_t ctx, uint32_t *dest, const uint32_t *source, size_t nelems, int pe);
void shmem_ctx_uint32_iput(shmem_ctx_t ctx, uint32_t *dest, const uint32_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_uint32_iget(shmem_ctx_t ctx, uint32_t *dest, const uint32_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_uint32_p(shmem_ctx_t ctx, uint32_t *dest, uint32_t value, int pe);
uint32_t shmem_ctx_uint32_g(shmem_ctx_t ctx, const uint32_t *source, int pe);
void shmem_ctx_uint64_put(shmem_ctx_t ctx, uint64_t *dest, const uint64_t *source, size_t nelems, int pe);
void shmem_ctx_uint64_put_nbi(shmem_ctx_t ctx, uint64_t *dest, const uint64_t *source, size_t nelems, int pe);
void shmem_ctx_uint64_get(shmem_ctx_t ctx, uint64_t *dest, const uint64_t *source, size_t nelems, int pe);
void shmem_ctx_uint64_get_nbi(shmem_ctx_t ctx, uint64_t *dest, const uint64_t *source, size_t nelems, int pe);
void shmem_ctx_uint64_iput(shmem_ctx_t ctx, uint64_t *dest, const uint64_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_uint64_iget(shmem_ctx_t ctx, uint64_t *dest, const uint64_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_uint64_p(shmem_ctx_t ctx, uint64_t *dest, uint64_t value, int pe);
uint64_t shmem_ctx_uint64_g(shmem_ctx_t ctx, const uint64_t *source, int pe);
void shmem_ctx_size_put(shmem_ctx_t ctx, size_t *dest, const size_t *source, size_t nelems, int pe);
void shmem_ctx_size_put_nbi(shmem_ctx_t ctx, size_t *dest, const size_t *source, size_t nelems, int pe);
void shmem_ctx_size_get(shmem_ctx_t ctx, size_t *dest, const size_t *source, size_t nelems, int pe);
void shmem_ctx_size_get_nbi(shmem_ctx_t ctx, size_t *dest, const size_t *source, size_t nelems, int pe);
void shmem_ctx_size_iput(shmem_ctx_t ctx, size_t *dest, const size_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_size_iget(shmem_ctx_t ctx, size_t *dest, const size_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_size_p(shmem_ctx_t ctx, size_t *dest, size_t value, int pe);
size_t shmem_ctx_size_g(shmem_ctx_t ctx, const size_t *source, int pe);
void shmem_ctx_ptrdiff_put(shmem_ctx_t ctx, ptrdiff_t *dest, const ptrdiff_t *source, size_t nelems, int pe);
void shmem_ctx_ptrdiff_put_nbi(shmem_ctx_t ctx, ptrdiff_t *dest, const ptrdiff_t *source, size_t nelems, int pe);
void shmem_ctx_ptrdiff_get(shmem_ctx_t ctx, ptrdiff_t *dest, const ptrdiff_t *source, size_t nelems, int pe);
void shmem_ctx_ptrdiff_get_nbi(shmem_ctx_t ctx, ptrdiff_t *dest, const ptrdiff_t *source, size_t nelems, int pe);
void shmem_ctx_ptrdiff_iput(shmem_ctx_t ctx, ptrdiff_t *dest, const ptrdiff_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_ptrdiff_iget(shmem_ctx_t ctx, ptrdiff_t *dest, const ptrdiff_t *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_ptrdiff_p(shmem_ctx_t ctx, ptrdiff_t *dest, ptrdiff_t value, int pe);
ptrdiff_t shmem_ctx_ptrdiff_g(shmem_ctx_t ctx, const ptrdiff_t *source, int pe);
void shmem_ctx_put8(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_put8_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_get8(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_get8_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_iput8(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_iget8(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_put16(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_put16_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_get16(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_get16_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_iput16(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_iget16(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_put32(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_put32_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_get32(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_get32_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_iput32(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_iget32(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_put64(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_put64_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_get64(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_get64_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_iput64(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_iget64(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_put128(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_put128_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_get128(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_get128_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_iput128(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
void shmem_ctx_iget128(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
float shmem_ctx_float_atomic_fetch(shmem_ctx_t ctx, const float *source, int pe);
void shmem_ctx_float_atomic_set(shmem_ctx_t ctx, float *dest, float value, int pe);
float shmem_ctx_float_atomic_swap(shmem_ctx_t ctx, float *dest, float value, int pe);
void shmem_ctx_float_atomic_fetch_nbi(shmem_ctx_t ctx, float *fetch, const float *source, int pe);
void shmem_ctx_float_atomic_swap_nbi(shmem_ctx_t ctx, float *fetch, float *dest, float value, int pe);
double shmem_ctx_double_atomic_fetch(shmem_ctx_t ctx, const double *source, int pe);
void shmem_ctx_double_atomic_set(shmem_ctx_t ctx, double *dest, double value, int pe);
double shmem_ctx_double_atomic_swap(shmem_ctx_t ctx, double *dest, double value, int pe);
void shmem_ctx_double_atomic_fetch_nbi(shmem_ctx_t ctx, double *fetch, const double *source, int pe);
void shmem_ctx_double_atomic_swap_nbi(shmem_ctx_t ctx, double *fetch, double *dest, double value, int pe);
int shmem_ctx_int_atomic_fetch(shmem_ctx_t ctx, const int *source, int pe);
void shmem_ctx_int_atomic_set(shmem_ctx_t ctx, int *dest, int value, int pe);
int shmem_ctx_int_atomic_swap(shmem_ctx_t ctx, int *dest, int value, int pe);
void shmem_ctx_int_atomic_fetch_nbi(shmem_ctx_t ctx, int *fetch, const int *source, int pe);
void shmem_ctx_int_atomic_swap_nbi(shmem_ctx_t ctx, int *fetch, int *dest, int value, int pe);
long shmem_ctx_long_atomic_fetch(shmem_ctx_t ctx, const long *source, int pe);
void shmem_ctx_long_atomic_set(shmem_ctx_t ctx, long *dest, long value, int pe);
long shmem_ctx_long_atomic_swap(shmem_ctx_t ctx, long *dest, long value, int pe);
void shmem_ctx_long_atomic_fetch_nbi(shmem_ctx_t ctx, long *fetch, const long *source, int pe);
void shmem_ctx_long_atomic_swap_nbi(shmem_ctx_t ctx, long *fetch, long *dest, long value, int pe);
long long shmem_ctx_longlong_atomic_fetch(shmem_ctx_t ctx, const long long *source, int pe);
void shmem_ctx_longlong_atomic_set(shmem_ctx_t ctx, long long *dest, long long value, int pe);
long long shmem_ctx_longlong_atomic_swap(shmem_ctx_t ctx, long long *dest, long long value, int pe);
void shmem_ctx_longlong_atomic_fetch_nbi(shmem_ctx_t ctx, long long *fetch, const long long *source, int pe);
void shmem_ctx_longlong_atomic_swap_nbi(shmem_ctx_t ctx, long long *fetch, long long *dest, long long value, int pe);
unsigned int shmem_ctx_uint_atomic_fetch(shmem_ctx_t ctx, const unsigned int *source, int pe);
void shmem_ctx_uint_atomic_set(shmem_ctx_t ctx, unsigned int *dest, unsigned int value, int pe);
unsigned int shmem_ctx_uint_atomic_swap(shmem_ctx_t ctx, unsigned int *dest, unsigned int value, int pe);
void shmem_ctx_uint_atomic_fetch_nbi(shmem_ctx_t ctx, unsigned int *fetch, const unsigned int *source, int pe);
void shmem_ctx_uint_atomic_swap_nbi(shmem_ctx_t ctx, unsigned int *fetch, unsigned int *dest, unsigned int value, int pe);
unsigned long shmem_ctx_ulong_atomic_fetch(shmem_ctx_t ctx, const unsigned long *source, int pe);
void shmem_ctx_ulong_atomic_set(shmem_ctx_t ctx, unsigned long *dest, unsigned long value, int pe);
unsigned long shmem_ctx_ulong_atomic_swap(shmem_ctx_t ctx, unsigned long *dest, unsigned long value, int pe);
void shmem_ctx_ulong_atomic_fetch_nbi(shmem_ctx_t ctx, unsigned long *fetch, const unsigned long *source, int pe);
void shmem_ctx_ulong_atomic_swap_nbi(shmem_ctx_t ctx, unsigned long *fetch, unsigned long *dest, unsigned long value, int pe);
unsigned long long shmem_ctx_ulonglong_atomic_fetch(shmem_ctx_t ctx, const unsigned long long *source, int pe);
void shmem_ctx_ulonglong_atomic_set(shmem_ctx_t ctx, unsigned long long *dest, unsigned long long value, int pe);
unsigned long long shmem_ctx_ulonglong_atomic_swap(shmem_ctx_t ctx, unsigned long long *dest, unsigned long long value, int pe);
void shmem_ctx_ulonglong_atomic_fetch_nbi(shmem_ctx_t ctx, unsigned long long *fetch, const unsigned long long *source, int pe);
void shmem_ctx_ulonglong_atomic_swap_nbi(shmem_ctx_t ctx, unsigned long long *fetch, unsigned long long *dest, unsigned long long value, int pe);
int32_t shmem_ctx_int32_atomic_fetch(shmem_ctx_t ctx, const int32_t *source, int pe);
void shmem_ctx_int32_atomic_set(shmem_ctx_t ctx, int32_t *dest, int32_t value, int pe);
int32_t shmem_ctx_int32_atomic_swap(shmem_ctx_t ctx, int32_t *dest, int32_t value, int pe);
void shmem_ctx_int32_atomic_fetch_nbi(shmem_ctx_t ctx, int32_t *fetch, const int32_t *source, int pe);
void shmem_ctx_int32_atomic_swap_nbi(shmem_ctx_t ctx, int32_t *fetch, int32_t *dest, int32_t value, int pe);
int64_t shmem_ctx_int64_atomic_fetch(shmem_ctx_t ctx, const int64_t *source, int pe);
void shmem_ctx_int64_atomic_set(shmem_ctx_t ctx, int64_t *dest, int64_t value, int pe);
int64_t shmem_ctx_int64_atomic_swap(shmem_ctx_t ctx, int64_t *dest, int64_t value, int pe);
void shmem_ctx_int64_atomic_fetch_nbi(shmem_ctx_t ctx, int64_t *fetch, const int64_t *source, int pe);
void shmem_ctx_int64_atomic_swap_nbi(shmem_ctx_t ctx, int64_t *fetch, int64_t *dest, int64_t value, int pe);
uint32_t shmem_ctx_uint32_atomic_fetch(shmem_ctx_t ctx, const uint32_t *source, int pe);
void shmem_ctx_uint32_atomic_set(shmem_ctx_t ctx, uint32_t *dest, uint32_t value, int pe);
uint32_t shmem_ctx_uint32_atomic_swap(shmem_ctx_t ctx, uint32_t *dest, uint32_t value, int pe);
void shmem_ctx_uint32_atomic_fetch_nbi(shmem_ctx_t ctx, uint32_t *fetch, const uint32_t *source, int pe);
void shmem_ctx_uint32_atomic_swap_nbi(shmem_ctx_t ctx, uint32_t *fetch, uint32_t *dest, uint32_t value, int pe);
uint64_t shmem_ctx_uint64_atomic_fetch(shmem_ctx_t ctx, const uint64_t *source, int pe);
void shmem_ctx_uint64_atomic_set(shmem_ctx_t ctx, uint64_t *dest, uint64_t value, int pe);
uint64_t shmem_ctx_uint64_atomic_swap(shmem_ctx_t ctx, uint64_t *dest, uint64_t value, int pe);
void shmem_ctx_uint64_atomic_fetch_nbi(shmem_ctx_t ctx, uint64_t *fetch, const uint64_t *source, int pe);
void shmem_ctx_uint64_atomic_swap_nbi(shmem_ctx_t ctx, uint64_t *fetch, uint64_t *dest, uint64_t value, int pe);
size_t shmem_ctx_size_atomic_fetch(shmem_ctx_t ctx, const size_t *source, int pe);
void shmem_ctx_size_atomic_set(shmem_ctx_t ctx, size_t *dest, size_t value, int pe);
size_t shmem_ctx_size_atomic_swap(shmem_ctx_t ctx, size_t *dest, size_t value, int pe);
void shmem_ctx_size_atomic_fetch_nbi(shmem_ctx_t ctx, size_t *fetch, const size_t *source, int pe);
void shmem_ctx_size_atomic_swap_nbi(shmem_ctx_t ctx, size_t *fetch, size_t *dest, size_t value, int pe);
ptrdiff_t shmem_ctx_ptrdiff_atomic_fetch(shmem_ctx_t ctx, const ptrdiff_t *source, int pe);
void shmem_ctx_ptrdiff_atomic_set(shmem_ctx_t ctx, ptrdiff_t *dest, ptrdiff_t value, int pe);
ptrdiff_t shmem_ctx_ptrdiff_atomic_swap(shmem_ctx_t ctx, ptrdiff_t *dest, ptrdiff_t value, int pe);
void shmem_ctx_ptrdiff_atomic_fetch_nbi(shmem_ctx_t ctx, ptrdiff_t *fetch, const ptrdiff_t *source, int pe);
void shmem_ctx_ptrdiff_atomic_swap_nbi(shmem_ctx_t ctx, ptrdiff_t *fetch, ptrdiff_t *dest, ptrdiff_t value, int pe);
int shmem_ctx_int_atomic_compare_swap(shmem_ctx_t ctx, int *dest, int cond, int value, int pe);
int shmem_ctx_int_atomic_fetch_inc(shmem_ctx_t ctx, int *dest, int pe);
void shmem_ctx_int_atomic_inc(shmem_ctx_t ctx, int *dest, int pe);
int shmem_ctx_int_atomic_fetch_add(shmem_ctx_t ctx, int *dest, int value, int pe);
void shmem_ctx_int_atomic_add(shmem_ctx_t ctx, int *dest, int value, int pe);
void shmem_ctx_int_atomic_compare_swap_nbi(shmem_ctx_t ctx, int *fetch, int *dest, int cond, int value, int pe);
void shmem_ctx_int_atomic_fetch_inc_nbi(shmem_ctx_t ctx, int *fetch, int *dest, int pe);
void shmem_ctx_int_atomic_fetch_add_nbi(shmem_ctx_t ctx, int *fetch, int *dest, int value, int pe);
long shmem_ctx_long_atomic_compare_swap(shmem_ctx_t ctx, long *dest, long cond, long value, int pe);
long shmem_ctx_long_atomic_fetch_inc(shmem_ctx_t ctx, long *dest, int pe);
void shmem_ctx_long_atomic_inc(shmem_ctx_t ctx, long *dest, int pe);
long shmem_ctx_long_atomic_fetch_add(shmem_ctx_t ctx, long *dest, long value, int pe);
void shmem_ctx_long_atomic_add(shmem_ctx_t ctx, long *dest, long value, int pe);
void shmem_ctx_long_atomic_compare_swap_nbi(shmem_ctx_t ctx, long *fetch, long *dest, long cond, long value, int pe);
void shmem_ctx_long_atomic_fetch_inc_nbi(shmem_ctx_t ctx, long *fetch, long *dest, int pe);
void shmem_ctx_long_atomic_fetch_add_nbi(shmem_ctx_t ctx, long *fetch, long *dest, long value, int pe);
long long shmem_ctx_longlong_atomic_compare_swap(shmem_ctx_t ctx, long long *dest, long long cond, long long value, int pe);
long long shmem_ctx_longlong_atomic_fetch_inc(shmem_ctx_t ctx, long long *dest, int pe);
void shmem_ctx_longlong_atomic_inc(shmem_ctx_t ctx, long long *dest, int pe);
long long shmem_ctx_longlong_atomic_fetch_add(shmem_ctx_t ctx, long long *dest, long long value, int pe);
void shmem_ctx_longlong_atomic_add(shmem_ctx_t ctx, long long *dest, long long value, int pe);
void shmem_ctx_longlong_atomic_compare_swap_nbi(shmem_ctx_t ctx, long long *fetch, long long *dest, long long cond, long long value, int pe);
void shmem_ctx_longlong_atomic_fetch_inc_nbi(shmem_ctx_t ctx, long long *fetch, long long *dest, int pe);
void shmem_ctx_longlong_atomic_fetch_add_nbi(shmem_ctx_t ctx, long long *fetch, long long *dest, long long value, int pe);
unsigned int shmem_ctx_uint_atomic_compare_swap(shmem_ctx_t ctx, unsigned int *dest, unsigned int cond, unsigned int value, int pe);
unsigned int shmem_ctx_uint_atomic_fetch_inc(shmem_ctx_t ctx, unsigned int *dest, int pe);
void shmem_ctx_uint_atomic_inc(shmem_ctx_t ctx, unsigned int *dest, int pe);
unsigned int shmem_ctx_uint_atomic_fetch_add(shmem_ctx_t ctx, unsigned int *dest, unsigned int value, int pe);
void shmem_ctx_uint_atomic_add(shmem_ctx_t ctx, unsigned int *dest, unsigned int value, int pe);
void shmem_ctx_uint_atomic_compare_swap_nbi(shmem_ctx_t ctx, unsigned int *fetch, unsigned int *dest, unsigned int cond, unsigned int value, int pe);
void shmem_ctx_uint_atomic_fetch_inc_nbi(shmem_ctx_t ctx, unsigned int *fetch, unsigned int *dest, int pe);
void shmem_ctx_uint_atomic_fetch_add_nbi(shmem_ctx_t ctx, unsigned int *fetch, unsigned int *dest, unsigned int value, int pe);
unsigned long shmem_ctx_ulong_atomic_compare_swap(shmem_ctx_t ctx, unsigned long *dest, unsigned long cond, unsigned long value, int pe);
unsigned long shmem_ctx_ulong_atomic_fetch_inc(shmem_ctx_t ctx, unsigned long *dest, int pe);
void shmem_ctx_ulong_atomic_inc(shmem_ctx_t ctx, unsigned long *dest, int pe);
unsigned long shmem_ctx_ulong_atomic_fetch_add(shmem_ctx_t ctx, unsigned long *dest, unsigned long value, int pe);
void shmem_ctx_ulong_atomic_add(shmem_ctx_t ctx, unsigned long *dest, unsigned long value, int pe);
void shmem_ctx_ulong_atomic_compare_swap_nbi(shmem_ctx_t ctx, unsigned long *fetch, unsigned long *dest, unsigned long cond, unsigned long value, int pe);
void shmem_ctx_ulong_atomic_fetch_inc_nbi(shmem_ctx_t ctx, unsigned long *fetch, unsigned long *dest, int pe);
void shmem_ctx_ulong_atomic_fetch_add_nbi(shmem_ctx_t ctx, unsigned long *fetch, unsigned long *dest, unsigned long value, int pe);
unsigned long long shmem_ctx_ulonglong_atomic_compare_swap(shmem_ctx_t ctx, unsigned long long *dest, unsigned long long cond, unsigned long long value, int pe);
unsigned long long shmem_ctx_ulonglong_atomic_fetch_inc(shmem_ctx_t ctx, unsigned long long *dest, int pe);
void shmem_ctx_ulonglong_atomic_inc(shmem_ctx_t ctx, unsigned long long *dest, int pe);
unsigned long long shmem_ctx_ulonglong_atomic_fetch_add(shmem_ctx_t ctx, unsigned long long *dest, unsigned long long value, int pe);
void shmem_ctx_ulonglong_atomic_add(shmem_ctx_t ctx, unsigned long long *dest, unsigned long long value, int pe);
void shmem_ctx_ulonglong_atomic_compare_swap_nbi(shmem_ctx_t ctx, unsigned long long *fetch, unsigned long long *dest, unsigned long long cond, unsigned long long value, int pe);
void shmem_ctx_ulonglong_atomic_fetch_inc_nbi(shmem_ctx_t ctx, unsigned long long *fetch, unsigned long long *dest, int pe);
void shmem_ctx_ulonglong_atomic_fetch_add_nbi(shmem_ctx_t ctx, unsigned long long *fetch, unsigned long long *dest, unsigned long long value, int pe);
int32_t shmem_ctx_int32_atomic_compare_swap(shmem_ctx_t ctx, int32_t *dest, int32_t cond, int32_t value, int pe);
int32_t shmem_ctx_int32_atomic_fetch_inc(shmem_ctx_t ctx, int32_t *dest, int pe);
void shmem_ctx_int32_atomic_inc(shmem_ctx_t ctx, int32_t *dest, int pe);
int32_t shmem_ctx_int32_atomic_fetch_add(shmem_ctx_t ctx, int32_t *dest, int32_t value, int pe);
void shmem_ctx_int32_atomic_add(shmem_ctx_t ctx, int32_t *dest, int32_t value, int pe);
void shmem_ctx_int32_atomic_compare_swap_nbi(shmem_ctx_t ctx, int32_t *fetch, int32_t *dest, int32_t cond, int32_t value, int pe);
void shmem_ctx_int32_atomic_fetch_inc_nbi(shmem_ctx_t ctx, int32_t *fetch, int32_t *dest, int pe);
void shmem_ctx_int32_atomic_fetch_add_nbi(shmem_ctx_t ctx, int32_t *fetch, int32_t *dest, int32_t value, int pe);
int64_t shmem_ctx_int64_atomic_compare_swap(shmem_ctx_t ctx, int64_t *dest, int64_t cond, int64_t value, int pe);
int64_t shmem_ctx_int64_atomic_fetch_inc(shmem_ctx_t ctx, int64_t *dest, int pe);
void shmem_ctx_int64_atomic_inc(shmem_ctx_t ctx, int64_t *dest, int pe);
int64_t shmem_ctx_int64_atomic_fetch_add(shmem_ctx_t ctx, int64_t *dest, int64_t value, int pe);
void shmem_ctx_int64_atomic_add(shmem_ctx_t ctx, int64_t *dest, int64_t value, int pe);
void shmem_ctx_int64_atomic_compare_swap_nbi(shmem_ctx_t ctx, int64_t *fetch, int64_t *dest, int64_t cond, int64_t value, int pe);
void shmem_ctx_int64_atomic_fetch_inc_nbi(shmem_ctx_t ctx, int64_t *fetch, int64_t *dest, int pe);
void shmem_ctx_int64_atomic_fetch_add_nbi(shmem_ctx_t ctx, int64_t *fetch, int64_t *dest, int64_t value, int pe);
uint32_t shmem_ctx_uint32_atomic_compare_swap(shmem_ctx_t ctx, uint32_t *dest, uint32_t cond, uint32_t value, int pe);
uint32_t shmem_ctx_uint32_atomic_fetch_inc(shmem_ctx_t ctx, uint32_t *dest, int pe);
void shmem_ctx_uint32_atomic_inc(shmem_ctx_t ctx, uint32_t *dest, int pe);
uint32_t shmem_ctx_uint32_atomic_fetch_add(shmem_ctx_t ctx, uint32_t *dest, uint32_t value, int pe);
void shmem_ctx_uint32_atomic_add(shmem_ctx_t ctx, uint32_t *dest, uint32_t value, int pe);
void shmem_ctx_uint32_atomic_compare_swap_nbi(shmem_ctx_t ctx, uint32_t *fetch, uint32_t *dest, uint32_t cond, uint32_t value, int pe);
void shmem_ctx_uint32_atomic_fetch_inc_nbi(shmem_ctx_t ctx, uint32_t *fetch, uint32_t *dest, int pe);
void shmem_ctx_uint32_atomic_fetch_add_nbi(shmem_ctx_t ctx, uint32_t *fetch, uint32_t *dest, uint32_t value, int pe);
uint64_t shmem_ctx_uint64_atomic_compare_swap(shmem_ctx_t ctx, uint64_t *dest, uint64_t cond, uint64_t value, int pe);
uint64_t shmem_ctx_uint64_atomic_fetch_inc(shmem_ctx_t ctx, uint64_t *dest, int pe);
void shmem_ctx_uint64_atomic_inc(shmem_ctx_t ctx, uint64_t *dest, int pe);
uint64_t shmem_ctx_uint64_atomic_fetch_add(shmem_ctx_t ctx, uint64_t *dest, uint64_t value, int pe);
void shmem_ctx_uint64_atomic_add(shmem_ctx_t ctx, uint64_t *dest, uint64_t value, int pe);
void shmem_ctx_uint64_atomic_compare_swap_nbi(shmem_ctx_t ctx, uint64_t *fetch, uint64_t *dest, uint64_t cond, uint64_t value, int pe);
void shmem_ctx_uint64_atomic_fetch_inc_nbi(shmem_ctx_t ctx, uint64_t *fetch, uint64_t *dest, int pe);
void shmem_ctx_uint64_atomic_fetch_add_nbi(shmem_ctx_t ctx, uint64_t *fetch, uint64_t *dest, uint64_t value, int pe);
size_t shmem_ctx_size_atomic_compare_swap(shmem_ctx_t ctx, size_t *dest, size_t cond, size_t value, int pe);
size_t shmem_ctx_size_atomic_fetch_inc(shmem_ctx_t ctx, size_t *dest, int pe);
void shmem_ctx_size_atomic_inc(shmem_ctx_t ctx, size_t *dest, int pe);
size_t shmem_ctx_size_atomic_fetch_add(shmem_ctx_t ctx, size_t *dest, size_t value, int pe);
void shmem_ctx_size_atomic_add(shmem_ctx_t ctx, size_t *dest, size_t value, int pe);
void shmem_ctx_size_atomic_compare_swap_nbi(shmem_ctx_t ctx, size_t *fetch, size_t *dest, size_t cond, size_t value, int pe);
void shmem_ctx_size_atomic_fetch_inc_nbi(shmem_ctx_t ctx, size_t *fetch, size_t *dest, int pe);
void shmem_ctx_size_atomic_fetch_add_nbi(shmem_ctx_t ctx, size_t *fetch, size_t *dest, size_t value, int pe);
ptrdiff_t shmem_ctx_ptrdiff_atomic_compare_swap(shmem_ctx_t ctx, ptrdiff_t *dest, ptrdiff_t cond, ptrdiff_t value, int pe);
ptrdiff_t shmem_ctx_ptrdiff_atomic_fetch_inc(shmem_ctx_t ctx, ptrdiff_t *dest, int pe);
void shmem_ctx_ptrdiff_atomic_inc(shmem_ctx_t ctx, ptrdiff_t *dest, int pe);
ptrdiff_t shmem_ctx_ptrdiff_atomic_fetch_add(shmem_ctx_t ctx, ptrdiff_t *dest, ptrdiff_t value, int pe);
void shmem_ctx_ptrdiff_atomic_add(shmem_ctx_t ctx, ptrdiff_t *dest, ptrdiff_t value, int pe);
void shmem_ctx_ptrdiff_atomic_compare_swap_nbi(shmem_ctx_t ctx, ptrdiff_t *fetch, ptrdiff_t *dest, ptrdiff_t cond, ptrdiff_t value, int pe);
void shmem_ctx_ptrdiff_atomic_fetch_inc_nbi(shmem_ctx_t ctx, ptrdiff_t *fetch, ptrdiff_t *dest, int pe);
void shmem_ctx_ptrdiff_atomic_fetch_add_nbi(shmem_ctx_t ctx, ptrdiff_t *fetch, ptrdiff_t *dest, ptrdiff_t value, int pe);
unsigned int shmem_ctx_uint_atomic_fetch_and(shmem_ctx_t ctx, unsigned int *dest, unsigned int value, int pe);
void shmem_ctx_uint_atomic_and(shmem_ctx_t ctx, unsigned int *dest, unsigned int value, int pe);
void shmem_ctx_uint_atomic_fetch_and_nbi(shmem_ctx_t ctx, unsigned int *fetch, unsigned int *dest, unsigned int value, int pe);
unsigned int shmem_ctx_uint_atomic_fetch_or(shmem_ctx_t ctx, unsigned int *dest, unsigned int value, int pe);
void shmem_ctx_uint_atomic_or(shmem_ctx_t ctx, unsigned int *dest, unsigned int value, int pe);
void shmem_ctx_uint_atomic_fetch_or_nbi(shmem_ctx_t ctx, unsigned int *fetch, unsigned int *dest, unsigned int value, int pe);
unsigned int shmem_ctx_uint_atomic_fetch_xor(shmem_ctx_t ctx, unsigned int *dest, unsigned int value, int pe);
void shmem_ctx_uint_atomic_xor(shmem_ctx_t ctx, unsigned int *dest, unsigned int value, int pe);
void shmem_ctx_uint_atomic_fetch_xor_nbi(shmem_ctx_t ctx, unsigned int *fetch, unsigned int *dest, unsigned int value, int pe);
unsigned long shmem_ctx_ulong_atomic_fetch_and(shmem_ctx_t ctx, unsigned long *dest, unsigned long value, int pe);
void shmem_ctx_ulong_atomic_and(shmem_ctx_t ctx, unsigned long *dest, unsigned long value, int pe);
void shmem_ctx_ulong_atomic_fetch_and_nbi(shmem_ctx_t ctx, unsigned long *fetch, unsigned long *dest, unsigned long value, int pe);
unsigned long shmem_ctx_ulong_atomic_fetch_or(shmem_ctx_t ctx, unsigned long *dest, unsigned long value, int pe);
void shmem_ctx_ulong_atomic_or(shmem_ctx_t ctx, unsigned long *dest, unsigned long value, int pe);
void shmem_ctx_ulong_atomic_fetch_or_nbi(shmem_ctx_t ctx, unsigned long *fetch, unsigned long *dest, unsigned long value, int pe);
unsigned long shmem_ctx_ulong_atomic_fetch_xor(shmem_ctx_t ctx, unsigned long *dest, unsigned long value, int pe);
void shmem_ctx_ulong_atomic_xor(shmem_ctx_t ctx, unsigned long *dest, unsigned long value, int pe);
void shmem_ctx_ulong_atomic_fetch_xor_nbi(shmem_ctx_t ctx, unsigned long *fetch, unsigned long *dest, unsigned long value, int pe);
unsigned long long shmem_ctx_ulonglong_atomic_fetch_and(shmem_ctx_t ctx, unsigned long long *dest, unsigned long long value, int pe);
void shmem_ctx_ulonglong_atomic_and(shmem_ctx_t ctx, unsigned long long *dest, unsigned long long value, int pe);
void shmem_ctx_ulonglong_atomic_fetch_and_nbi(shmem_ctx_t ctx, unsigned long long *fetch, unsigned long long *dest, unsigned long long value, int pe);
unsigned long long shmem_ctx_ulonglong_atomic_fetch_or(shmem_ctx_t ctx, unsigned long long *dest, unsigned long long value, int pe);
void shmem_ctx_ulonglong_atomic_or(shmem_ctx_t ctx, unsigned long long *dest, unsigned long long value, int pe);
void shmem_ctx_ulonglong_atomic_fetch_or_nbi(shmem_ctx_t ctx, unsigned long long *fetch, unsigned long long *dest, unsigned long long value, int pe);
unsigned long long shmem_ctx_ulonglong_atomic_fetch_xor(shmem_ctx_t ctx, unsigned long long *dest, unsigned long long value, int pe);
void shmem_ctx_ulonglong_atomic_xor(shmem_ctx_t ctx, unsigned long long *dest, unsigned long long value, int pe);
void shmem_ctx_ulonglong_atomic_fetch_xor_nbi(shmem_ctx_t ctx, unsigned long long *fetch, unsigned long long *dest, unsigned long long value, int pe);
int32_t shmem_ctx_int32_atomic_fetch_and(shmem_ctx_t ctx, int32_t *dest, int32_t value, int pe);
void shmem_ctx_int32_atomic_and(shmem_ctx_t ctx, int32_t *dest, int32_t value, int pe);
void shmem_ctx_int32_atomic_fetch_and_nbi(shmem_ctx_t ctx, int32_t *fetch, int32_t *dest, int32_t value, int pe);
int32_t shmem_ctx_int32_atomic_fetch_or(shmem_ctx_t ctx, int32_t *dest, int32_t value, int pe);
void shmem_ctx_int32_atomic_or(shmem_ctx_t ctx, int32_t *dest, int32_t value, int pe);
void shmem_ctx_int32_atomic_fetch_or_nbi(shmem_ctx_t ctx, int32_t *fetch, int32_t *dest, int32_t value, int pe);
int32_t shmem_ctx_int32_atomic_fetch_xor(shmem_ctx_t ctx, int32_t *dest, int32_t value, int pe);
void shmem_ctx_int32_atomic_xor(shmem_ctx_t ctx, int32_t *dest, int32_t value, int pe);
void shmem_ctx_int32_atomic_fetch_xor_nbi(shmem_ctx_t ctx, int32_t *fetch, int32_t *dest, int32_t value, int pe);
int64_t shmem_ctx_int64_atomic_fetch_and(shmem_ctx_t ctx, int64_t *dest, int64_t value, int pe);
void shmem_ctx_int64_atomic_and(shmem_ctx_t ctx, int64_t *dest, int64_t value, int pe);
void shmem_ctx_int64_atomic_fetch_and_nbi(shmem_ctx_t ctx, int64_t *fetch, int64_t *dest, int64_t value, int pe);
int64_t shmem_ctx_int64_atomic_fetch_or(shmem_ctx_t ctx, int64_t *dest, int64_t value, int pe);
void shmem_ctx_int64_atomic_or(shmem_ctx_t ctx, int64_t *dest, int64_t value, int pe);
void shmem_ctx_int64_atomic_fetch_or_nbi(shmem_ctx_t ctx, int64_t *fetch, int64_t *dest, int64_t value, int pe);
int64_t shmem_ctx_int64_atomic_fetch_xor(shmem_ctx_t ctx, int64_t *dest, int64_t value, int pe);
void shmem_ctx_int64_atomic_xor(shmem_ctx_t ctx, int64_t *dest, int64_t value, int pe);
void shmem_ctx_int64_atomic_fetch_xor_nbi(shmem_ctx_t ctx, int64_t *fetch, int64_t *dest, int64_t value, int pe);
uint32_t shmem_ctx_uint32_atomic_fetch_and(shmem_ctx_t ctx, uint32_t *dest, uint32_t value, int pe);
void shmem_ctx_uint32_atomic_and(shmem_ctx_t ctx, uint32_t *dest, uint32_t value, int pe);
void shmem_ctx_uint32_atomic_fetch_and_nbi(shmem_ctx_t ctx, uint32_t *fetch, uint32_t *dest, uint32_t value, int pe);
uint32_t shmem_ctx_uint32_atomic_fetch_or(shmem_ctx_t ctx, uint32_t *dest, uint32_t value, int pe);
void shmem_ctx_uint32_atomic_or(shmem_ctx_t ctx, uint32_t *dest, uint32_t value, int pe);
void shmem_ctx_uint32_atomic_fetch_or_nbi(shmem_ctx_t ctx, uint32_t *fetch, uint32_t *dest, uint32_t value, int pe);
uint32_t shmem_ctx_uint32_atomic_fetch_xor(shmem_ctx_t ctx, uint32_t *dest, uint32_t value, int pe);
void shmem_ctx_uint32_atomic_xor(shmem_ctx_t ctx, uint32_t *dest, uint32_t value, int pe);
void shmem_ctx_uint32_atomic_fetch_xor_nbi(shmem_ctx_t ctx, uint32_t *fetch, uint32_t *dest, uint32_t value, int pe);
uint64_t shmem_ctx_uint64_atomic_fetch_and(shmem_ctx_t ctx, uint64_t *dest, uint64_t value, int pe);
void shmem_ctx_uint64_atomic_and(shmem_ctx_t ctx, uint64_t *dest, uint64_t value, int pe);
void shmem_ctx_uint64_atomic_fetch_and_nbi(shmem_ctx_t ctx, uint64_t *fetch, uint64_t *dest, uint64_t value, int pe);
uint64_t shmem_ctx_uint64_atomic_fetch_or(shmem_ctx_t ctx, uint64_t *dest, uint64_t value, int pe);
void shmem_ctx_uint64_atomic_or(shmem_ctx_t ctx, uint64_t *dest, uint64_t value, int pe);
void shmem_ctx_uint64_atomic_fetch_or_nbi(shmem_ctx_t ctx, uint64_t *fetch, uint64_t *dest, uint64_t value, int pe);
uint64_t shmem_ctx_uint64_atomic_fetch_xor(shmem_ctx_t ctx, uint64_t *dest, uint64_t value, int pe);
void shmem_ctx_uint64_atomic_xor(shmem_ctx_t ctx, uint64_t *dest, uint64_t value, int pe);
void shmem_ctx_uint64_atomic_fetch_xor_nbi(shmem_ctx_t ctx, uint64_t *fetch, uint64_t *dest, uint64_t value, int pe);
static inline void shmem_ctx_longdouble_p(shmem_ctx_t ctx, long double *dest, long double value, int pe)
{
    shmem_ctx_longdouble_put(ctx, dest, &value, 1, pe);
}
static inline long double shmem_ctx_longdouble_g(shmem_ctx_t ctx, const long double *source, int pe)
{
    long double value;
    shmem_ctx_longdouble_get(ctx, &value, source, 1, pe);
    return value;
}
void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);

/* Non-blocking fetching atomics (complete when they return). */
void shmem_float_atomic_fetch_nbi(float *fetch, const float *source, int pe);
void shmem_float_atomic_swap_nbi(float *fetch, float *dest, float value, int pe);
void shmem_double_atomic_fetch_nbi(double *fetch, const double *source, int pe);
void shmem_double_atomic_swap_nbi(double *fetch, double *dest, double value, int pe);
void shmem_int_atomic_fetch_nbi(int *fetch, const int *source, int pe);
void shmem_int_atomic_swap_nbi(int *fetch, int *dest, int value, int pe);
void shmem_long_atomic_fetch_nbi(long *fetch, const long *source, int pe);
void shmem_long_atomic_swap_nbi(long *fetch, long *dest, long value, int pe);
void shmem_longlong_atomic_fetch_nbi(long long *fetch, const long long *source, int pe);
void shmem_longlong_atomic_swap_nbi(long long *fetch, long long *dest, long long value, int pe);
void shmem_uint_atomic_fetch_nbi(unsigned int *fetch, const unsigned int *source, int pe);
void shmem_uint_atomic_swap_nbi(unsigned int *fetch, unsigned int *dest, unsigned int value, int pe);
void shmem_ulong_atomic_fetch_nbi(unsigned long *fetch, const unsigned long *source, int pe);
void shmem_ulong_atomic_swap_nbi(unsigned long *fetch, unsigned long *dest, unsigned long value, int pe);
void shmem_ulonglong_atomic_fetch_nbi(unsigned long long *fetch, const unsigned long long *source, int pe);
void shmem_ulonglong_atomic_swap_nbi(unsigned long long *fetch, unsigned long long *dest, unsigned long long value, int pe);
void shmem_int32_atomic_fetch_nbi(int32_t *fetch, const int32_t *source, int pe);
void shmem_int32_atomic_swap_nbi(int32_t *fetch, int32_t *dest, int32_t value, int pe);
void shmem_int64_atomic_fetch_nbi(int64_t *fetch, const int64_t *source, int pe);
void shmem_int64_atomic_swap_nbi(int64_t *fetch, int64_t *dest, int64_t value, int pe);
void shmem_uint32_atomic_fetch_nbi(uint32_t *fetch, const uint32_t *source, int pe);
void shmem_uint32_atomic_swap_nbi(uint32_t *fetch, uint32_t *dest, uint32_t value, int pe);
void shmem_uint64_atomic_fetch_nbi(uint64_t *fetch, const uint64_t *source, int pe);
void shmem_uint64_atomic_swap_nbi(uint64_t *fetch, uint64_t *dest, uint64_t value, int pe);
void shmem_size_atomic_fetch_nbi(size_t *fetch, const size_t *source, int pe);
void shmem_size_atomic_swap_nbi(size_t *fetch, size_t *dest, size_t value, int pe);
void shmem_ptrdiff_atomic_fetch_nbi(ptrdiff_t *fetch, const ptrdiff_t *source, int pe);
void shmem_ptrdiff_atomic_swap_nbi(ptrdiff_t *fetch, ptrdiff_t *dest, ptrdiff_t value, int pe);
void shmem_int_atomic_compare_swap_nbi(int *fetch, int *dest, int cond, int value, int pe);
void shmem_int_atomic_fetch_inc_nbi(int *fetch, int *dest, int pe);
void shmem_int_atomic_fetch_add_nbi(int *fetch, int *dest, int value, int pe);
void shmem_long_atomic_compare_swap_nbi(long *fetch, long *dest, long cond, long value, int pe);
void shmem_long_atomic_fetch_inc_nbi(long *fetch, long *dest, int pe);
void shmem_long_atomic_fetch_add_nbi(long *fetch, long *dest, long value, int pe);
void shmem_longlong_atomic_compare_swap_nbi(long long *fetch, long long *dest, long long cond, long long value, int pe);
void shmem_longlong_atomic_fetch_inc_nbi(long long *fetch, long long *dest, int pe);
void shmem_longlong_atomic_fetch_add_nbi(long long *fetch, long long *dest, long long value, int pe);
void shmem_uint_atomic_compare_swap_nbi(unsigned int *fetch, unsigned int *dest, unsigned int cond, unsigned int value, int pe);
void shmem_uint_atomic_fetch_inc_nbi(unsigned int *fetch, unsigned int *dest, int pe);
void shmem_uint_atomic_fetch_add_nbi(unsigned int *fetch, unsigned int *dest, unsigned int value, int pe);
void shmem_ulong_atomic_compare_swap_nbi(unsigned long *fetch, unsigned long *dest, unsigned long cond, unsigned long value, int pe);
void shmem_ulong_atomic_fetch_inc_nbi(unsigned long *fetch, unsigned long *dest, int pe);
void shmem_ulong_atomic_fetch_add_nbi(unsigned long *fetch, unsigned long *dest, unsigned long value, int pe);
void shmem_ulonglong_atomic_compare_swap_nbi(unsigned long long *fetch, unsigned long long *dest, unsigned long long cond, unsigned long long value, int pe);
void shmem_ulonglong_atomic_fetch_inc_nbi(unsigned long long *fetch, unsigned long long *dest, int pe);
void shmem_ulonglong_atomic_fetch_add_nbi(unsigned long long *fetch, unsigned long long *dest, unsigned long long value, int pe);
void shmem_int32_atomic_compare_swap_nbi(int32_t *fetch, int32_t *dest, int32_t cond, int32_t value, int pe);
void shmem_int32_atomic_fetch_inc_nbi(int32_t *fetch, int32_t *dest, int pe);
void shmem_int32_atomic_fetch_add_nbi(int32_t *fetch, int32_t *dest, int32_t value, int pe);
void shmem_int64_atomic_compare_swap_nbi(int64_t *fetch, int64_t *dest, int64_t cond, int64_t value, int pe);
void shmem_int64_atomic_fetch_inc_nbi(int64_t *fetch, int64_t *dest, int pe);
void shmem_int64_atomic_fetch_add_nbi(int64_t *fetch, int64_t *dest, int64_t value, int pe);
void shmem_uint32_atomic_compare_swap_nbi(uint32_t *fetch, uint32_t *dest, uint32_t cond, uint32_t value, int pe);
void shmem_uint32_atomic_fetch_inc_nbi(uint32_t *fetch, uint32_t *dest, int pe);
void shmem_uint32_atomic_fetch_add_nbi(uint32_t *fetch, uint32_t *dest, uint32_t value, int pe);
void shmem_uint64_atomic_compare_swap_nbi(uint64_t *fetch, uint64_t *dest, uint64_t cond, uint64_t value, int pe);
void shmem_uint64_atomic_fetch_inc_nbi(uint64_t *fetch, uint64_t *dest, int pe);
void shmem_uint64_atomic_fetch_add_nbi(uint64_t *fetch, uint64_t *dest, uint64_t value, int pe);
void shmem_size_atomic_compare_swap_nbi(size_t *fetch, size_t *dest, size_t cond, size_t value, int pe);
void shmem_size_atomic_fetch_inc_nbi(size_t *fetch, size_t *dest, int pe);
void shmem_size_atomic_fetch_add_nbi(size_t *fetch, size_t *dest, size_t value, int pe);
void shmem_ptrdiff_atomic_compare_swap_nbi(ptrdiff_t *fetch, ptrdiff_t *dest, ptrdiff_t cond, ptrdiff_t value, int pe);
void shmem_ptrdiff_atomic_fetch_inc_nbi(ptrdiff_t *fetch, ptrdiff_t *dest, int pe);
void shmem_ptrdiff_atomic_fetch_add_nbi(ptrdiff_t *fetch, ptrdiff_t *dest, ptrdiff_t value, int pe);
void shmem_uint_atomic_fetch_and_nbi(unsigned int *fetch, unsigned int *dest, unsigned int value, int pe);
void shmem_uint_atomic_fetch_or_nbi(unsigned int *fetch, unsigned int *dest, unsigned int value, int pe);
void shmem_uint_atomic_fetch_xor_nbi(unsigned int *fetch, unsigned int *dest, unsigned int value, int pe);
void shmem_ulong_atomic_fetch_and_nbi(unsigned long *fetch, unsigned long *dest, unsigned long value, int pe);
void shmem_ulong_atomic_fetch_or_nbi(unsigned long *fetch, unsigned long *dest, unsigned long value, int pe);
void shmem_ulong_atomic_fetch_xor_nbi(unsigned long *fetch, unsigned long *dest, unsigned long value, int pe);
void shmem_ulonglong_atomic_fetch_and_nbi(unsigned long long *fetch, unsigned long long *dest, unsigned long long value, int pe);
void shmem_ulonglong_atomic_fetch_or_nbi(unsigned long long *fetch, unsigned long long *dest, unsigned long long value, int pe);
void shmem_ulonglong_atomic_fetch_xor_nbi(unsigned long long *fetch, unsigned long long *dest, unsigned long long value, int pe);
void shmem_int32_atomic_fetch_and_nbi(int32_t *fetch, int32_t *dest, int32_t value, int pe);
void shmem_int32_atomic_fetch_or_nbi(int32_t *fetch, int32_t *dest, int32_t value, int pe);
void shmem_int32_atomic_fetch_xor_nbi(int32_t *fetch, int32_t *dest, int32_t value, int pe);
void shmem_int64_atomic_fetch_and_nbi(int64_t *fetch, int64_t *dest, int64_t value, int pe);
void shmem_int64_atomic_fetch_or_nbi(int64_t *fetch, int64_t *dest, int64_t value, int pe);
void shmem_int64_atomic_fetch_xor_nbi(int64_t *fetch, int64_t *dest, int64_t value, int pe);
void shmem_uint32_atomic_fetch_and_nbi(uint32_t *fetch, uint32_t *dest, uint32_t value, int pe);
void shmem_uint32_atomic_fetch_or_nbi(uint32_t *fetch, uint32_t *dest, uint32_t value, int pe);
void shmem_uint32_atomic_fetch_xor_nbi(uint32_t *fetch, uint32_t *dest, uint32_t value, int pe);
void shmem_uint64_atomic_fetch_and_nbi(uint64_t *fetch, uint64_t *dest, uint64_t value, int pe);
void shmem_uint64_atomic_fetch_or_nbi(uint64_t *fetch, uint64_t *dest, uint64_t value, int pe);
void shmem_uint64_atomic_fetch_xor_nbi(uint64_t *fetch, uint64_t *dest, uint64_t value, int pe);

/* Signals: the data is delivered before the signal changes. */
void shmem_float_put_signal(float *dest, const float *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_float_put_signal_nbi(float *dest, const float *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_float_put_signal(shmem_ctx_t ctx, float *dest, const float *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_float_put_signal_nbi(shmem_ctx_t ctx, float *dest, const float *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_double_put_signal(double *dest, const double *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_double_put_signal_nbi(double *dest, const double *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_double_put_signal(shmem_ctx_t ctx, double *dest, const double *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_double_put_signal_nbi(shmem_ctx_t ctx, double *dest, const double *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_longdouble_put_signal(long double *dest, const long double *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_longdouble_put_signal_nbi(long double *dest, const long double *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_longdouble_put_signal(shmem_ctx_t ctx, long double *dest, const long double *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_longdouble_put_signal_nbi(shmem_ctx_t ctx, long double *dest, const long double *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_char_put_signal(char *dest, const char *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_char_put_signal_nbi(char *dest, const char *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_char_put_signal(shmem_ctx_t ctx, char *dest, const char *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_char_put_signal_nbi(shmem_ctx_t ctx, char *dest, const char *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_schar_put_signal(signed char *dest, const signed char *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_schar_put_signal_nbi(signed char *dest, const signed char *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_schar_put_signal(shmem_ctx_t ctx, signed char *dest, const signed char *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_schar_put_signal_nbi(shmem_ctx_t ctx, signed char *dest, const signed char *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_short_put_signal(short *dest, const short *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_short_put_signal_nbi(short *dest, const short *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_short_put_signal(shmem_ctx_t ctx, short *dest, const short *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_short_put_signal_nbi(shmem_ctx_t ctx, short *dest, const short *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_int_put_signal(int *dest, const int *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_int_put_signal_nbi(int *dest, const int *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_int_put_signal(shmem_ctx_t ctx, int *dest, const int *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_int_put_signal_nbi(shmem_ctx_t ctx, int *dest, const int *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_long_put_signal(long *dest, const long *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_long_put_signal_nbi(long *dest, const long *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_long_put_signal(shmem_ctx_t ctx, long *dest, const long *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_long_put_signal_nbi(shmem_ctx_t ctx, long *dest, const long *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_longlong_put_signal(long long *dest, const long long *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_longlong_put_signal_nbi(long long *dest, const long long *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_longlong_put_signal(shmem_ctx_t ctx, long long *dest, const long long *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_longlong_put_signal_nbi(shmem_ctx_t ctx, long long *dest, const long long *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_uchar_put_signal(unsigned char *dest, const unsigned char *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_uchar_put_signal_nbi(unsigned char *dest, const unsigned char *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_uchar_put_signal(shmem_ctx_t ctx, unsigned char *dest, const unsigned char *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_uchar_put_signal_nbi(shmem_ctx_t ctx, unsigned char *dest, const unsigned char *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ushort_put_signal(unsigned short *dest, const unsigned short *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ushort_put_signal_nbi(unsigned short *dest, const unsigned short *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_ushort_put_signal(shmem_ctx_t ctx, unsigned short *dest, const unsigned short *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_ushort_put_signal_nbi(shmem_ctx_t ctx, unsigned short *dest, const unsigned short *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_uint_put_signal(unsigned int *dest, const unsigned int *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_uint_put_signal_nbi(unsigned int *dest, const unsigned int *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_uint_put_signal(shmem_ctx_t ctx, unsigned int *dest, const unsigned int *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_uint_put_signal_nbi(shmem_ctx_t ctx, unsigned int *dest, const unsigned int *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ulong_put_signal(unsigned long *dest, const unsigned long *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ulong_put_signal_nbi(unsigned long *dest, const unsigned long *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_ulong_put_signal(shmem_ctx_t ctx, unsigned long *dest, const unsigned long *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_ulong_put_signal_nbi(shmem_ctx_t ctx, unsigned long *dest, const unsigned long *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ulonglong_put_signal(unsigned long long *dest, const unsigned long long *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ulonglong_put_signal_nbi(unsigned long long *dest, const unsigned long long *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_ulonglong_put_signal(shmem_ctx_t ctx, unsigned long long *dest, const unsigned long long *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_ulonglong_put_signal_nbi(shmem_ctx_t ctx, unsigned long long *dest, const unsigned long long *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_int8_put_signal(int8_t *dest, const int8_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_int8_put_signal_nbi(int8_t *dest, const int8_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_int8_put_signal(shmem_ctx_t ctx, int8_t *dest, const int8_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_int8_put_signal_nbi(shmem_ctx_t ctx, int8_t *dest, const int8_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_int16_put_signal(int16_t *dest, const int16_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_int16_put_signal_nbi(int16_t *dest, const int16_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_int16_put_signal(shmem_ctx_t ctx, int16_t *dest, const int16_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_int16_put_signal_nbi(shmem_ctx_t ctx, int16_t *dest, const int16_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_int32_put_signal(int32_t *dest, const int32_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_int32_put_signal_nbi(int32_t *dest, const int32_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_int32_put_signal(shmem_ctx_t ctx, int32_t *dest, const int32_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_int32_put_signal_nbi(shmem_ctx_t ctx, int32_t *dest, const int32_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_int64_put_signal(int64_t *dest, const int64_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_int64_put_signal_nbi(int64_t *dest, const int64_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_int64_put_signal(shmem_ctx_t ctx, int64_t *dest, const int64_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_int64_put_signal_nbi(shmem_ctx_t ctx, int64_t *dest, const int64_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_uint8_put_signal(uint8_t *dest, const uint8_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_uint8_put_signal_nbi(uint8_t *dest, const uint8_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_uint8_put_signal(shmem_ctx_t ctx, uint8_t *dest, const uint8_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_uint8_put_signal_nbi(shmem_ctx_t ctx, uint8_t *dest, const uint8_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_uint16_put_signal(uint16_t *dest, const uint16_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_uint16_put_signal_nbi(uint16_t *dest, const uint16_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_uint16_put_signal(shmem_ctx_t ctx, uint16_t *dest, const uint16_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_uint16_put_signal_nbi(shmem_ctx_t ctx, uint16_t *dest, const uint16_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_uint32_put_signal(uint32_t *dest, const uint32_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_uint32_put_signal_nbi(uint32_t *dest, const uint32_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_uint32_put_signal(shmem_ctx_t ctx, uint32_t *dest, const uint32_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_uint32_put_signal_nbi(shmem_ctx_t ctx, uint32_t *dest, const uint32_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_uint64_put_signal(uint64_t *dest, const uint64_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_uint64_put_signal_nbi(uint64_t *dest, const uint64_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_uint64_put_signal(shmem_ctx_t ctx, uint64_t *dest, const uint64_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_uint64_put_signal_nbi(shmem_ctx_t ctx, uint64_t *dest, const uint64_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_size_put_signal(size_t *dest, const size_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_size_put_signal_nbi(size_t *dest, const size_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_size_put_signal(shmem_ctx_t ctx, size_t *dest, const size_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_size_put_signal_nbi(shmem_ctx_t ctx, size_t *dest, const size_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ptrdiff_put_signal(ptrdiff_t *dest, const ptrdiff_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ptrdiff_put_signal_nbi(ptrdiff_t *dest, const ptrdiff_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_ptrdiff_put_signal(shmem_ctx_t ctx, ptrdiff_t *dest, const ptrdiff_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_ptrdiff_put_signal_nbi(shmem_ctx_t ctx, ptrdiff_t *dest, const ptrdiff_t *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_put8_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_put8_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_put8_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_put8_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_put16_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_put16_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_put16_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_put16_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_put32_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_put32_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_put32_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_put32_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_put64_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_put64_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_put64_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_put64_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_put128_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_put128_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_put128_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_put128_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* Waits and tests on several variables. */
void shmem_short_wait_until_all(short *ivars, size_t nelems, const int *status, int cmp, short cmp_value);
size_t shmem_short_wait_until_any(short *ivars, size_t nelems, const int *status, int cmp, short cmp_value);
size_t shmem_short_wait_until_some(short *ivars, size_t nelems, size_t *indices, const int *status, int cmp, short cmp_value);
void shmem_short_wait_until_all_vector(short *ivars, size_t nelems, const int *status, int cmp, const short *cmp_values);
size_t shmem_short_wait_until_any_vector(short *ivars, size_t nelems, const int *status, int cmp, const short *cmp_values);
size_t shmem_short_wait_until_some_vector(short *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const short *cmp_values);
int shmem_short_test_all(short *ivars, size_t nelems, const int *status, int cmp, short cmp_value);
size_t shmem_short_test_any(short *ivars, size_t nelems, const int *status, int cmp, short cmp_value);
size_t shmem_short_test_some(short *ivars, size_t nelems, size_t *indices, const int *status, int cmp, short cmp_value);
int shmem_short_test_all_vector(short *ivars, size_t nelems, const int *status, int cmp, const short *cmp_values);
size_t shmem_short_test_any_vector(short *ivars, size_t nelems, const int *status, int cmp, const short *cmp_values);
size_t shmem_short_test_some_vector(short *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const short *cmp_values);
void shmem_ushort_wait_until_all(unsigned short *ivars, size_t nelems, const int *status, int cmp, unsigned short cmp_value);
size_t shmem_ushort_wait_until_any(unsigned short *ivars, size_t nelems, const int *status, int cmp, unsigned short cmp_value);
size_t shmem_ushort_wait_until_some(unsigned short *ivars, size_t nelems, size_t *indices, const int *status, int cmp, unsigned short cmp_value);
void shmem_ushort_wait_until_all_vector(unsigned short *ivars, size_t nelems, const int *status, int cmp, const unsigned short *cmp_values);
size_t shmem_ushort_wait_until_any_vector(unsigned short *ivars, size_t nelems, const int *status, int cmp, const unsigned short *cmp_values);
size_t shmem_ushort_wait_until_some_vector(unsigned short *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const unsigned short *cmp_values);
int shmem_ushort_test_all(unsigned short *ivars, size_t nelems, const int *status, int cmp, unsigned short cmp_value);
size_t shmem_ushort_test_any(unsigned short *ivars, size_t nelems, const int *status, int cmp, unsigned short cmp_value);
size_t shmem_ushort_test_some(unsigned short *ivars, size_t nelems, size_t *indices, const int *status, int cmp, unsigned short cmp_value);
int shmem_ushort_test_all_vector(unsigned short *ivars, size_t nelems, const int *status, int cmp, const unsigned short *cmp_values);
size_t shmem_ushort_test_any_vector(unsigned short *ivars, size_t nelems, const int *status, int cmp, const unsigned short *cmp_values);
size_t shmem_ushort_test_some_vector(unsigned short *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const unsigned short *cmp_values);
void shmem_int_wait_until_all(int *ivars, size_t nelems, const int *status, int cmp, int cmp_value);
size_t shmem_int_wait_until_any(int *ivars, size_t nelems, const int *status, int cmp, int cmp_value);
size_t shmem_int_wait_until_some(int *ivars, size_t nelems, size_t *indices, const int *status, int cmp, int cmp_value);
void shmem_int_wait_until_all_vector(int *ivars, size_t nelems, const int *status, int cmp, const int *cmp_values);
size_t shmem_int_wait_until_any_vector(int *ivars, size_t nelems, const int *status, int cmp, const int *cmp_values);
size_t shmem_int_wait_until_some_vector(int *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const int *cmp_values);
int shmem_int_test_all(int *ivars, size_t nelems, const int *status, int cmp, int cmp_value);
size_t shmem_int_test_any(int *ivars, size_t nelems, const int *status, int cmp, int cmp_value);
size_t shmem_int_test_some(int *ivars, size_t nelems, size_t *indices, const int *status, int cmp, int cmp_value);
int shmem_int_test_all_vector(int *ivars, size_t nelems, const int *status, int cmp, const int *cmp_values);
size_t shmem_int_test_any_vector(int *ivars, size_t nelems, const int *status, int cmp, const int *cmp_values);
size_t shmem_int_test_some_vector(int *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const int *cmp_values);
void shmem_long_wait_until_all(long *ivars, size_t nelems, const int *status, int cmp, long cmp_value);
size_t shmem_long_wait_until_any(long *ivars, size_t nelems, const int *status, int cmp, long cmp_value);
size_t shmem_long_wait_until_some(long *ivars, size_t nelems, size_t *indices, const int *status, int cmp, long cmp_value);
void shmem_long_wait_until_all_vector(long *ivars, size_t nelems, const int *status, int cmp, const long *cmp_values);
size_t shmem_long_wait_until_any_vector(long *ivars, size_t nelems, const int *status, int cmp, const long *cmp_values);
size_t shmem_long_wait_until_some_vector(long *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const long *cmp_values);
int shmem_long_test_all(long *ivars, size_t nelems, const int *status, int cmp, long cmp_value);
size_t shmem_long_test_any(long *ivars, size_t nelems, const int *status, int cmp, long cmp_value);
size_t shmem_long_test_some(long *ivars, size_t nelems, size_t *indices, const int *status, int cmp, long cmp_value);
int shmem_long_test_all_vector(long *ivars, size_t nelems, const int *status, int cmp, const long *cmp_values);
size_t shmem_long_test_any_vector(long *ivars, size_t nelems, const int *status, int cmp, const long *cmp_values);
size_t shmem_long_test_some_vector(long *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const long *cmp_values);
void shmem_longlong_wait_until_all(long long *ivars, size_t nelems, const int *status, int cmp, long long cmp_value);
size_t shmem_longlong_wait_until_any(long long *ivars, size_t nelems, const int *status, int cmp, long long cmp_value);
size_t shmem_longlong_wait_until_some(long long *ivars, size_t nelems, size_t *indices, const int *status, int cmp, long long cmp_value);
void shmem_longlong_wait_until_all_vector(long long *ivars, size_t nelems, const int *status, int cmp, const long long *cmp_values);
size_t shmem_longlong_wait_until_any_vector(long long *ivars, size_t nelems, const int *status, int cmp, const long long *cmp_values);
size_t shmem_longlong_wait_until_some_vector(long long *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const long long *cmp_values);
int shmem_longlong_test_all(long long *ivars, size_t nelems, const int *status, int cmp, long long cmp_value);
size_t shmem_longlong_test_any(long long *ivars, size_t nelems, const int *status, int cmp, long long cmp_value);
size_t shmem_longlong_test_some(long long *ivars, size_t nelems, size_t *indices, const int *status, int cmp, long long cmp_value);
int shmem_longlong_test_all_vector(long long *ivars, size_t nelems, const int *status, int cmp, const long long *cmp_values);
size_t shmem_longlong_test_any_vector(long long *ivars, size_t nelems, const int *status, int cmp, const long long *cmp_values);
size_t shmem_longlong_test_some_vector(long long *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const long long *cmp_values);
void shmem_uint_wait_until_all(unsigned int *ivars, size_t nelems, const int *status, int cmp, unsigned int cmp_value);
size_t shmem_uint_wait_until_any(unsigned int *ivars, size_t nelems, const int *status, int cmp, unsigned int cmp_value);
size_t shmem_uint_wait_until_some(unsigned int *ivars, size_t nelems, size_t *indices, const int *status, int cmp, unsigned int cmp_value);
void shmem_uint_wait_until_all_vector(unsigned int *ivars, size_t nelems, const int *status, int cmp, const unsigned int *cmp_values);
size_t shmem_uint_wait_until_any_vector(unsigned int *ivars, size_t nelems, const int *status, int cmp, const unsigned int *cmp_values);
size_t shmem_uint_wait_until_some_vector(unsigned int *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const unsigned int *cmp_values);
int shmem_uint_test_all(unsigned int *ivars, size_t nelems, const int *status, int cmp, unsigned int cmp_value);
size_t shmem_uint_test_any(unsigned int *ivars, size_t nelems, const int *status, int cmp, unsigned int cmp_value);
size_t shmem_uint_test_some(unsigned int *ivars, size_t nelems, size_t *indices, const int *status, int cmp, unsigned int cmp_value);
int shmem_uint_test_all_vector(unsigned int *ivars, size_t nelems, const int *status, int cmp, const unsigned int *cmp_values);
size_t shmem_uint_test_any_vector(unsigned int *ivars, size_t nelems, const int *status, int cmp, const unsigned int *cmp_values);
size_t shmem_uint_test_some_vector(unsigned int *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const unsigned int *cmp_values);
void shmem_ulong_wait_until_all(unsigned long *ivars, size_t nelems, const int *status, int cmp, unsigned long cmp_value);
size_t shmem_ulong_wait_until_any(unsigned long *ivars, size_t nelems, const int *status, int cmp, unsigned long cmp_value);
size_t shmem_ulong_wait_until_some(unsigned long *ivars, size_t nelems, size_t *indices, const int *status, int cmp, unsigned long cmp_value);
void shmem_ulong_wait_until_all_vector(unsigned long *ivars, size_t nelems, const int *status, int cmp, const unsigned long *cmp_values);
size_t shmem_ulong_wait_until_any_vector(unsigned long *ivars, size_t nelems, const int *status, int cmp, const unsigned long *cmp_values);
size_t shmem_ulong_wait_until_some_vector(unsigned long *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const unsigned long *cmp_values);
int shmem_ulong_test_all(unsigned long *ivars, size_t nelems, const int *status, int cmp, unsigned long cmp_value);
size_t shmem_ulong_test_any(unsigned long *ivars, size_t nelems, const int *status, int cmp, unsigned long cmp_value);
size_t shmem_ulong_test_some(unsigned long *ivars, size_t nelems, size_t *indices, const int *status, int cmp, unsigned long cmp_value);
int shmem_ulong_test_all_vector(unsigned long *ivars, size_t nelems, const int *status, int cmp, const unsigned long *cmp_values);
size_t shmem_ulong_test_any_vector(unsigned long *ivars, size_t nelems, const int *status, int cmp, const unsigned long *cmp_values);
size_t shmem_ulong_test_some_vector(unsigned long *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const unsigned long *cmp_values);
void shmem_ulonglong_wait_until_all(unsigned long long *ivars, size_t nelems, const int *status, int cmp, unsigned long long cmp_value);
size_t shmem_ulonglong_wait_until_any(unsigned long long *ivars, size_t nelems, const int *status, int cmp, unsigned long long cmp_value);
size_t shmem_ulonglong_wait_until_some(unsigned long long *ivars, size_t nelems, size_t *indices, const int *status, int cmp, unsigned long long cmp_value);
void shmem_ulonglong_wait_until_all_vector(unsigned long long *ivars, size_t nelems, const int *status, int cmp, const unsigned long long *cmp_values);
size_t shmem_ulonglong_wait_until_any_vector(unsigned long long *ivars, size_t nelems, const int *status, int cmp, const unsigned long long *cmp_values);
size_t shmem_ulonglong_wait_until_some_vector(unsigned long long *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const unsigned long long *cmp_values);
int shmem_ulonglong_test_all(unsigned long long *ivars, size_t nelems, const int *status, int cmp, unsigned long long cmp_value);
size_t shmem_ulonglong_test_any(unsigned long long *ivars, size_t nelems, const int *status, int cmp, unsigned long long cmp_value);
size_t shmem_ulonglong_test_some(unsigned long long *ivars, size_t nelems, size_t *indices, const int *status, int cmp, unsigned long long cmp_value);
int shmem_ulonglong_test_all_vector(unsigned long long *ivars, size_t nelems, const int *status, int cmp, const unsigned long long *cmp_values);
size_t shmem_ulonglong_test_any_vector(unsigned long long *ivars, size_t nelems, const int *status, int cmp, const unsigned long long *cmp_values);
size_t shmem_ulonglong_test_some_vector(unsigned long long *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const unsigned long long *cmp_values);
void shmem_int32_wait_until_all(int32_t *ivars, size_t nelems, const int *status, int cmp, int32_t cmp_value);
size_t shmem_int32_wait_until_any(int32_t *ivars, size_t nelems, const int *status, int cmp, int32_t cmp_value);
size_t shmem_int32_wait_until_some(int32_t *ivars, size_t nelems, size_t *indices, const int *status, int cmp, int32_t cmp_value);
void shmem_int32_wait_until_all_vector(int32_t *ivars, size_t nelems, const int *status, int cmp, const int32_t *cmp_values);
size_t shmem_int32_wait_until_any_vector(int32_t *ivars, size_t nelems, const int *status, int cmp, const int32_t *cmp_values);
size_t shmem_int32_wait_until_some_vector(int32_t *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const int32_t *cmp_values);
int shmem_int32_test_all(int32_t *ivars, size_t nelems, const int *status, int cmp, int32_t cmp_value);
size_t shmem_int32_test_any(int32_t *ivars, size_t nelems, const int *status, int cmp, int32_t cmp_value);
size_t shmem_int32_test_some(int32_t *ivars, size_t nelems, size_t *indices, const int *status, int cmp, int32_t cmp_value);
int shmem_int32_test_all_vector(int32_t *ivars, size_t nelems, const int *status, int cmp, const int32_t *cmp_values);
size_t shmem_int32_test_any_vector(int32_t *ivars, size_t nelems, const int *status, int cmp, const int32_t *cmp_values);
size_t shmem_int32_test_some_vector(int32_t *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const int32_t *cmp_values);
void shmem_int64_wait_until_all(int64_t *ivars, size_t nelems, const int *status, int cmp, int64_t cmp_value);
size_t shmem_int64_wait_until_any(int64_t *ivars, size_t nelems, const int *status, int cmp, int64_t cmp_value);
size_t shmem_int64_wait_until_some(int64_t *ivars, size_t nelems, size_t *indices, const int *status, int cmp, int64_t cmp_value);
void shmem_int64_wait_until_all_vector(int64_t *ivars, size_t nelems, const int *status, int cmp, const int64_t *cmp_values);
size_t shmem_int64_wait_until_any_vector(int64_t *ivars, size_t nelems, const int *status, int cmp, const int64_t *cmp_values);
size_t shmem_int64_wait_until_some_vector(int64_t *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const int64_t *cmp_values);
int shmem_int64_test_all(int64_t *ivars, size_t nelems, const int *status, int cmp, int64_t cmp_value);
size_t shmem_int64_test_any(int64_t *ivars, size_t nelems, const int *status, int cmp, int64_t cmp_value);
size_t shmem_int64_test_some(int64_t *ivars, size_t nelems, size_t *indices, const int *status, int cmp, int64_t cmp_value);
int shmem_int64_test_all_vector(int64_t *ivars, size_t nelems, const int *status, int cmp, const int64_t *cmp_values);
size_t shmem_int64_test_any_vector(int64_t *ivars, size_t nelems, const int *status, int cmp, const int64_t *cmp_values);
size_t shmem_int64_test_some_vector(int64_t *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const int64_t *cmp_values);
void shmem_uint32_wait_until_all(uint32_t *ivars, size_t nelems, const int *status, int cmp, uint32_t cmp_value);
size_t shmem_uint32_wait_until_any(uint32_t *ivars, size_t nelems, const int *status, int cmp, uint32_t cmp_value);
size_t shmem_uint32_wait_until_some(uint32_t *ivars, size_t nelems, size_t *indices, const int *status, int cmp, uint32_t cmp_value);
void shmem_uint32_wait_until_all_vector(uint32_t *ivars, size_t nelems, const int *status, int cmp, const uint32_t *cmp_values);
size_t shmem_uint32_wait_until_any_vector(uint32_t *ivars, size_t nelems, const int *status, int cmp, const uint32_t *cmp_values);
size_t shmem_uint32_wait_until_some_vector(uint32_t *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const uint32_t *cmp_values);
int shmem_uint32_test_all(uint32_t *ivars, size_t nelems, const int *status, int cmp, uint32_t cmp_value);
size_t shmem_uint32_test_any(uint32_t *ivars, size_t nelems, const int *status, int cmp, uint32_t cmp_value);
size_t shmem_uint32_test_some(uint32_t *ivars, size_t nelems, size_t *indices, const int *status, int cmp, uint32_t cmp_value);
int shmem_uint32_test_all_vector(uint32_t *ivars, size_t nelems, const int *status, int cmp, const uint32_t *cmp_values);
size_t shmem_uint32_test_any_vector(uint32_t *ivars, size_t nelems, const int *status, int cmp, const uint32_t *cmp_values);
size_t shmem_uint32_test_some_vector(uint32_t *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const uint32_t *cmp_values);
void shmem_uint64_wait_until_all(uint64_t *ivars, size_t nelems, const int *status, int cmp, uint64_t cmp_value);
size_t shmem_uint64_wait_until_any(uint64_t *ivars, size_t nelems, const int *status, int cmp, uint64_t cmp_value);
size_t shmem_uint64_wait_until_some(uint64_t *ivars, size_t nelems, size_t *indices, const int *status, int cmp, uint64_t cmp_value);
void shmem_uint64_wait_until_all_vector(uint64_t *ivars, size_t nelems, const int *status, int cmp, const uint64_t *cmp_values);
size_t shmem_uint64_wait_until_any_vector(uint64_t *ivars, size_t nelems, const int *status, int cmp, const uint64_t *cmp_values);
size_t shmem_uint64_wait_until_some_vector(uint64_t *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const uint64_t *cmp_values);
int shmem_uint64_test_all(uint64_t *ivars, size_t nelems, const int *status, int cmp, uint64_t cmp_value);
size_t shmem_uint64_test_any(uint64_t *ivars, size_t nelems, const int *status, int cmp, uint64_t cmp_value);
size_t shmem_uint64_test_some(uint64_t *ivars, size_t nelems, size_t *indices, const int *status, int cmp, uint64_t cmp_value);
int shmem_uint64_test_all_vector(uint64_t *ivars, size_t nelems, const int *status, int cmp, const uint64_t *cmp_values);
size_t shmem_uint64_test_any_vector(uint64_t *ivars, size_t nelems, const int *status, int cmp, const uint64_t *cmp_values);
size_t shmem_uint64_test_some_vector(uint64_t *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const uint64_t *cmp_values);
void shmem_size_wait_until_all(size_t *ivars, size_t nelems, const int *status, int cmp, size_t cmp_value);
size_t shmem_size_wait_until_any(size_t *ivars, size_t nelems, const int *status, int cmp, size_t cmp_value);
size_t shmem_size_wait_until_some(size_t *ivars, size_t nelems, size_t *indices, const int *status, int cmp, size_t cmp_value);
void shmem_size_wait_until_all_vector(size_t *ivars, size_t nelems, const int *status, int cmp, const size_t *cmp_values);
size_t shmem_size_wait_until_any_vector(size_t *ivars, size_t nelems, const int *status, int cmp, const size_t *cmp_values);
size_t shmem_size_wait_until_some_vector(size_t *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const size_t *cmp_values);
int shmem_size_test_all(size_t *ivars, size_t nelems, const int *status, int cmp, size_t cmp_value);
size_t shmem_size_test_any(size_t *ivars, size_t nelems, const int *status, int cmp, size_t cmp_value);
size_t shmem_size_test_some(size_t *ivars, size_t nelems, size_t *indices, const int *status, int cmp, size_t cmp_value);
int shmem_size_test_all_vector(size_t *ivars, size_t nelems, const int *status, int cmp, const size_t *cmp_values);
size_t shmem_size_test_any_vector(size_t *ivars, size_t nelems, const int *status, int cmp, const size_t *cmp_values);
size_t shmem_size_test_some_vector(size_t *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const size_t *cmp_values);
void shmem_ptrdiff_wait_until_all(ptrdiff_t *ivars, size_t nelems, const int *status, int cmp, ptrdiff_t cmp_value);
size_t shmem_ptrdiff_wait_until_any(ptrdiff_t *ivars, size_t nelems, const int *status, int cmp, ptrdiff_t cmp_value);
size_t shmem_ptrdiff_wait_until_some(ptrdiff_t *ivars, size_t nelems, size_t *indices, const int *status, int cmp, ptrdiff_t cmp_value);
void shmem_ptrdiff_wait_until_all_vector(ptrdiff_t *ivars, size_t nelems, const int *status, int cmp, const ptrdiff_t *cmp_values);
size_t shmem_ptrdiff_wait_until_any_vector(ptrdiff_t *ivars, size_t nelems, const int *status, int cmp, const ptrdiff_t *cmp_values);
size_t shmem_ptrdiff_wait_until_some_vector(ptrdiff_t *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const ptrdiff_t *cmp_values);
int shmem_ptrdiff_test_all(ptrdiff_t *ivars, size_t nelems, const int *status, int cmp, ptrdiff_t cmp_value);
size_t shmem_ptrdiff_test_any(ptrdiff_t *ivars, size_t nelems, const int *status, int cmp, ptrdiff_t cmp_value);
size_t shmem_ptrdiff_test_some(ptrdiff_t *ivars, size_t nelems, size_t *indices, const int *status, int cmp, ptrdiff_t cmp_value);
int shmem_ptrdiff_test_all_vector(ptrdiff_t *ivars, size_t nelems, const int *status, int cmp, const ptrdiff_t *cmp_values);
size_t shmem_ptrdiff_test_any_vector(ptrdiff_t *ivars, size_t nelems, const int *status, int cmp, const ptrdiff_t *cmp_values);
size_t shmem_ptrdiff_test_some_vector(ptrdiff_t *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const ptrdiff_t *cmp_values);

/* Distributed locks (a symmetric long, zero when free). */
void shmem_set_lock(long *lock);
void shmem_clear_lock(long *lock);
int shmem_test_lock(long *lock);

/* Not supported: each ends the run with a report naming itself. */
void shmem_barrier();
void shmem_sync();
void shmem_broadcast32();
void shmem_broadcast64();
void shmem_collect32();
void shmem_collect64();
void shmem_fcollect32();
void shmem_fcollect64();
void shmem_alltoall32();
void shmem_alltoall64();
void shmem_alltoalls32();
void shmem_alltoalls64();
void shmem_int_sum_to_all();
void shmem_long_sum_to_all();
void shmem_double_sum_to_all();
void shmem_int_max_to_all();
void shmem_double_max_to_all();

/* Profiling control: there is no profiling library, so it does nothing. */
void shmem_pcontrol(int level, ...);

/* C11 generic routines: shmem_put, shmem_atomic_add, ... choose the typed
 * routine from the type their dest (or source, fetch, ivars) points to,
 * and the context form from the number of arguments. The sized integer
 * types are the standard ones here (int32_t is int, int64_t long long). */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)
#define SHMEM_C11_NARGS_(_1, _2, _3, _4, _5, _6, _7, _8, _9, N, ...) N
#define SHMEM_C11_NARGS(...) SHMEM_C11_NARGS_(__VA_ARGS__, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define SHMEM_C11_CAT_(a, b) a##b
#define SHMEM_C11_CAT(a, b) SHMEM_C11_CAT_(a, b)
#define shmem_put(...) SHMEM_C11_CAT(shmem_put_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_put_c11_4(dest, source, nelems, pe) _Generic(*(dest), float: shmem_float_put, double: shmem_double_put, long double: shmem_longdouble_put, char: shmem_char_put, signed char: shmem_schar_put, short: shmem_short_put, int: shmem_int_put, long: shmem_long_put, long long: shmem_longlong_put, unsigned char: shmem_uchar_put, unsigned short: shmem_ushort_put, unsigned int: shmem_uint_put, unsigned long: shmem_ulong_put, unsigned long long: shmem_ulonglong_put)(dest, source, nelems, pe)
#define shmem_put_c11_5(ctx, dest, source, nelems, pe) _Generic(*(dest), float: shmem_ctx_float_put, double: shmem_ctx_double_put, long double: shmem_ctx_longdouble_put, char: shmem_ctx_char_put, signed char: shmem_ctx_schar_put, short: shmem_ctx_short_put, int: shmem_ctx_int_put, long: shmem_ctx_long_put, long long: shmem_ctx_longlong_put, unsigned char: shmem_ctx_uchar_put, unsigned short: shmem_ctx_ushort_put, unsigned int: shmem_ctx_uint_put, unsigned long: shmem_ctx_ulong_put, unsigned long long: shmem_ctx_ulonglong_put)(ctx, dest, source, nelems, pe)
#define shmem_put_nbi(...) SHMEM_C11_CAT(shmem_put_nbi_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_put_nbi_c11_4(dest, source, nelems, pe) _Generic(*(dest), float: shmem_float_put_nbi, double: shmem_double_put_nbi, long double: shmem_longdouble_put_nbi, char: shmem_char_put_nbi, signed char: shmem_schar_put_nbi, short: shmem_short_put_nbi, int: shmem_int_put_nbi, long: shmem_long_put_nbi, long long: shmem_longlong_put_nbi, unsigned char: shmem_uchar_put_nbi, unsigned short: shmem_ushort_put_nbi, unsigned int: shmem_uint_put_nbi, unsigned long: shmem_ulong_put_nbi, unsigned long long: shmem_ulonglong_put_nbi)(dest, source, nelems, pe)
#define shmem_put_nbi_c11_5(ctx, dest, source, nelems, pe) _Generic(*(dest), float: shmem_ctx_float_put_nbi, double: shmem_ctx_double_put_nbi, long double: shmem_ctx_longdouble_put_nbi, char: shmem_ctx_char_put_nbi, signed char: shmem_ctx_schar_put_nbi, short: shmem_ctx_short_put_nbi, int: shmem_ctx_int_put_nbi, long: shmem_ctx_long_put_nbi, long long: shmem_ctx_longlong_put_nbi, unsigned char: shmem_ctx_uchar_put_nbi, unsigned short: shmem_ctx_ushort_put_nbi, unsigned int: shmem_ctx_uint_put_nbi, unsigned long: shmem_ctx_ulong_put_nbi, unsigned long long: shmem_ctx_ulonglong_put_nbi)(ctx, dest, source, nelems, pe)
#define shmem_get(...) SHMEM_C11_CAT(shmem_get_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_get_c11_4(dest, source, nelems, pe) _Generic(*(dest), float: shmem_float_get, double: shmem_double_get, long double: shmem_longdouble_get, char: shmem_char_get, signed char: shmem_schar_get, short: shmem_short_get, int: shmem_int_get, long: shmem_long_get, long long: shmem_longlong_get, unsigned char: shmem_uchar_get, unsigned short: shmem_ushort_get, unsigned int: shmem_uint_get, unsigned long: shmem_ulong_get, unsigned long long: shmem_ulonglong_get)(dest, source, nelems, pe)
#define shmem_get_c11_5(ctx, dest, source, nelems, pe) _Generic(*(dest), float: shmem_ctx_float_get, double: shmem_ctx_double_get, long double: shmem_ctx_longdouble_get, char: shmem_ctx_char_get, signed char: shmem_ctx_schar_get, short: shmem_ctx_short_get, int: shmem_ctx_int_get, long: shmem_ctx_long_get, long long: shmem_ctx_longlong_get, unsigned char: shmem_ctx_uchar_get, unsigned short: shmem_ctx_ushort_get, unsigned int: shmem_ctx_uint_get, unsigned long: shmem_ctx_ulong_get, unsigned long long: shmem_ctx_ulonglong_get)(ctx, dest, source, nelems, pe)
#define shmem_get_nbi(...) SHMEM_C11_CAT(shmem_get_nbi_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_get_nbi_c11_4(dest, source, nelems, pe) _Generic(*(dest), float: shmem_float_get_nbi, double: shmem_double_get_nbi, long double: shmem_longdouble_get_nbi, char: shmem_char_get_nbi, signed char: shmem_schar_get_nbi, short: shmem_short_get_nbi, int: shmem_int_get_nbi, long: shmem_long_get_nbi, long long: shmem_longlong_get_nbi, unsigned char: shmem_uchar_get_nbi, unsigned short: shmem_ushort_get_nbi, unsigned int: shmem_uint_get_nbi, unsigned long: shmem_ulong_get_nbi, unsigned long long: shmem_ulonglong_get_nbi)(dest, source, nelems, pe)
#define shmem_get_nbi_c11_5(ctx, dest, source, nelems, pe) _Generic(*(dest), float: shmem_ctx_float_get_nbi, double: shmem_ctx_double_get_nbi, long double: shmem_ctx_longdouble_get_nbi, char: shmem_ctx_char_get_nbi, signed char: shmem_ctx_schar_get_nbi, short: shmem_ctx_short_get_nbi, int: shmem_ctx_int_get_nbi, long: shmem_ctx_long_get_nbi, long long: shmem_ctx_longlong_get_nbi, unsigned char: shmem_ctx_uchar_get_nbi, unsigned short: shmem_ctx_ushort_get_nbi, unsigned int: shmem_ctx_uint_get_nbi, unsigned long: shmem_ctx_ulong_get_nbi, unsigned long long: shmem_ctx_ulonglong_get_nbi)(ctx, dest, source, nelems, pe)
#define shmem_iput(...) SHMEM_C11_CAT(shmem_iput_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_iput_c11_6(dest, source, dst, sst, nelems, pe) _Generic(*(dest), float: shmem_float_iput, double: shmem_double_iput, long double: shmem_longdouble_iput, char: shmem_char_iput, signed char: shmem_schar_iput, short: shmem_short_iput, int: shmem_int_iput, long: shmem_long_iput, long long: shmem_longlong_iput, unsigned char: shmem_uchar_iput, unsigned short: shmem_ushort_iput, unsigned int: shmem_uint_iput, unsigned long: shmem_ulong_iput, unsigned long long: shmem_ulonglong_iput)(dest, source, dst, sst, nelems, pe)
#define shmem_iput_c11_7(ctx, dest, source, dst, sst, nelems, pe) _Generic(*(dest), float: shmem_ctx_float_iput, double: shmem_ctx_double_iput, long double: shmem_ctx_longdouble_iput, char: shmem_ctx_char_iput, signed char: shmem_ctx_schar_iput, short: shmem_ctx_short_iput, int: shmem_ctx_int_iput, long: shmem_ctx_long_iput, long long: shmem_ctx_longlong_iput, unsigned char: shmem_ctx_uchar_iput, unsigned short: shmem_ctx_ushort_iput, unsigned int: shmem_ctx_uint_iput, unsigned long: shmem_ctx_ulong_iput, unsigned long long: shmem_ctx_ulonglong_iput)(ctx, dest, source, dst, sst, nelems, pe)
#define shmem_iget(...) SHMEM_C11_CAT(shmem_iget_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_iget_c11_6(dest, source, dst, sst, nelems, pe) _Generic(*(dest), float: shmem_float_iget, double: shmem_double_iget, long double: shmem_longdouble_iget, char: shmem_char_iget, signed char: shmem_schar_iget, short: shmem_short_iget, int: shmem_int_iget, long: shmem_long_iget, long long: shmem_longlong_iget, unsigned char: shmem_uchar_iget, unsigned short: shmem_ushort_iget, unsigned int: shmem_uint_iget, unsigned long: shmem_ulong_iget, unsigned long long: shmem_ulonglong_iget)(dest, source, dst, sst, nelems, pe)
#define shmem_iget_c11_7(ctx, dest, source, dst, sst, nelems, pe) _Generic(*(dest), float: shmem_ctx_float_iget, double: shmem_ctx_double_iget, long double: shmem_ctx_longdouble_iget, char: shmem_ctx_char_iget, signed char: shmem_ctx_schar_iget, short: shmem_ctx_short_iget, int: shmem_ctx_int_iget, long: shmem_ctx_long_iget, long long: shmem_ctx_longlong_iget, unsigned char: shmem_ctx_uchar_iget, unsigned short: shmem_ctx_ushort_iget, unsigned int: shmem_ctx_uint_iget, unsigned long: shmem_ctx_ulong_iget, unsigned long long: shmem_ctx_ulonglong_iget)(ctx, dest, source, dst, sst, nelems, pe)
#define shmem_p(...) SHMEM_C11_CAT(shmem_p_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_p_c11_3(dest, value, pe) _Generic(*(dest), float: shmem_float_p, double: shmem_double_p, long double: shmem_longdouble_p, char: shmem_char_p, signed char: shmem_schar_p, short: shmem_short_p, int: shmem_int_p, long: shmem_long_p, long long: shmem_longlong_p, unsigned char: shmem_uchar_p, unsigned short: shmem_ushort_p, unsigned int: shmem_uint_p, unsigned long: shmem_ulong_p, unsigned long long: shmem_ulonglong_p)(dest, value, pe)
#define shmem_p_c11_4(ctx, dest, value, pe) _Generic(*(dest), float: shmem_ctx_float_p, double: shmem_ctx_double_p, long double: shmem_ctx_longdouble_p, char: shmem_ctx_char_p, signed char: shmem_ctx_schar_p, short: shmem_ctx_short_p, int: shmem_ctx_int_p, long: shmem_ctx_long_p, long long: shmem_ctx_longlong_p, unsigned char: shmem_ctx_uchar_p, unsigned short: shmem_ctx_ushort_p, unsigned int: shmem_ctx_uint_p, unsigned long: shmem_ctx_ulong_p, unsigned long long: shmem_ctx_ulonglong_p)(ctx, dest, value, pe)
#define shmem_g(...) SHMEM_C11_CAT(shmem_g_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_g_c11_2(source, pe) _Generic(*(source), float: shmem_float_g, double: shmem_double_g, long double: shmem_longdouble_g, char: shmem_char_g, signed char: shmem_schar_g, short: shmem_short_g, int: shmem_int_g, long: shmem_long_g, long long: shmem_longlong_g, unsigned char: shmem_uchar_g, unsigned short: shmem_ushort_g, unsigned int: shmem_uint_g, unsigned long: shmem_ulong_g, unsigned long long: shmem_ulonglong_g)(source, pe)
#define shmem_g_c11_3(ctx, source, pe) _Generic(*(source), float: shmem_ctx_float_g, double: shmem_ctx_double_g, long double: shmem_ctx_longdouble_g, char: shmem_ctx_char_g, signed char: shmem_ctx_schar_g, short: shmem_ctx_short_g, int: shmem_ctx_int_g, long: shmem_ctx_long_g, long long: shmem_ctx_longlong_g, unsigned char: shmem_ctx_uchar_g, unsigned short: shmem_ctx_ushort_g, unsigned int: shmem_ctx_uint_g, unsigned long: shmem_ctx_ulong_g, unsigned long long: shmem_ctx_ulonglong_g)(ctx, source, pe)
#define shmem_put_signal(...) SHMEM_C11_CAT(shmem_put_signal_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_put_signal_c11_7(dest, source, nelems, sig_addr, signal, sig_op, pe) _Generic(*(dest), float: shmem_float_put_signal, double: shmem_double_put_signal, long double: shmem_longdouble_put_signal, char: shmem_char_put_signal, signed char: shmem_schar_put_signal, short: shmem_short_put_signal, int: shmem_int_put_signal, long: shmem_long_put_signal, long long: shmem_longlong_put_signal, unsigned char: shmem_uchar_put_signal, unsigned short: shmem_ushort_put_signal, unsigned int: shmem_uint_put_signal, unsigned long: shmem_ulong_put_signal, unsigned long long: shmem_ulonglong_put_signal)(dest, source, nelems, sig_addr, signal, sig_op, pe)
#define shmem_put_signal_c11_8(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe) _Generic(*(dest), float: shmem_ctx_float_put_signal, double: shmem_ctx_double_put_signal, long double: shmem_ctx_longdouble_put_signal, char: shmem_ctx_char_put_signal, signed char: shmem_ctx_schar_put_signal, short: shmem_ctx_short_put_signal, int: shmem_ctx_int_put_signal, long: shmem_ctx_long_put_signal, long long: shmem_ctx_longlong_put_signal, unsigned char: shmem_ctx_uchar_put_signal, unsigned short: shmem_ctx_ushort_put_signal, unsigned int: shmem_ctx_uint_put_signal, unsigned long: shmem_ctx_ulong_put_signal, unsigned long long: shmem_ctx_ulonglong_put_signal)(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe)
#define shmem_put_signal_nbi(...) SHMEM_C11_CAT(shmem_put_signal_nbi_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_put_signal_nbi_c11_7(dest, source, nelems, sig_addr, signal, sig_op, pe) _Generic(*(dest), float: shmem_float_put_signal_nbi, double: shmem_double_put_signal_nbi, long double: shmem_longdouble_put_signal_nbi, char: shmem_char_put_signal_nbi, signed char: shmem_schar_put_signal_nbi, short: shmem_short_put_signal_nbi, int: shmem_int_put_signal_nbi, long: shmem_long_put_signal_nbi, long long: shmem_longlong_put_signal_nbi, unsigned char: shmem_uchar_put_signal_nbi, unsigned short: shmem_ushort_put_signal_nbi, unsigned int: shmem_uint_put_signal_nbi, unsigned long: shmem_ulong_put_signal_nbi, unsigned long long: shmem_ulonglong_put_signal_nbi)(dest, source, nelems, sig_addr, signal, sig_op, pe)
#define shmem_put_signal_nbi_c11_8(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe) _Generic(*(dest), float: shmem_ctx_float_put_signal_nbi, double: shmem_ctx_double_put_signal_nbi, long double: shmem_ctx_longdouble_put_signal_nbi, char: shmem_ctx_char_put_signal_nbi, signed char: shmem_ctx_schar_put_signal_nbi, short: shmem_ctx_short_put_signal_nbi, int: shmem_ctx_int_put_signal_nbi, long: shmem_ctx_long_put_signal_nbi, long long: shmem_ctx_longlong_put_signal_nbi, unsigned char: shmem_ctx_uchar_put_signal_nbi, unsigned short: shmem_ctx_ushort_put_signal_nbi, unsigned int: shmem_ctx_uint_put_signal_nbi, unsigned long: shmem_ctx_ulong_put_signal_nbi, unsigned long long: shmem_ctx_ulonglong_put_signal_nbi)(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe)
#define shmem_atomic_fetch(...) SHMEM_C11_CAT(shmem_atomic_fetch_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_atomic_fetch_c11_2(source, pe) _Generic(*(source), float: shmem_float_atomic_fetch, double: shmem_double_atomic_fetch, int: shmem_int_atomic_fetch, long: shmem_long_atomic_fetch, long long: shmem_longlong_atomic_fetch, unsigned int: shmem_uint_atomic_fetch, unsigned long: shmem_ulong_atomic_fetch, unsigned long long: shmem_ulonglong_atomic_fetch)(source, pe)
#define shmem_atomic_fetch_c11_3(ctx, source, pe) _Generic(*(source), float: shmem_ctx_float_atomic_fetch, double: shmem_ctx_double_atomic_fetch, int: shmem_ctx_int_atomic_fetch, long: shmem_ctx_long_atomic_fetch, long long: shmem_ctx_longlong_atomic_fetch, unsigned int: shmem_ctx_uint_atomic_fetch, unsigned long: shmem_ctx_ulong_atomic_fetch, unsigned long long: shmem_ctx_ulonglong_atomic_fetch)(ctx, source, pe)
#define shmem_atomic_set(...) SHMEM_C11_CAT(shmem_atomic_set_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_atomic_set_c11_3(dest, value, pe) _Generic(*(dest), float: shmem_float_atomic_set, double: shmem_double_atomic_set, int: shmem_int_atomic_set, long: shmem_long_atomic_set, long long: shmem_longlong_atomic_set, unsigned int: shmem_uint_atomic_set, unsigned long: shmem_ulong_atomic_set, unsigned long long: shmem_ulonglong_atomic_set)(dest, value, pe)
#define shmem_atomic_set_c11_4(ctx, dest, value, pe) _Generic(*(dest), float: shmem_ctx_float_atomic_set, double: shmem_ctx_double_atomic_set, int: shmem_ctx_int_atomic_set, long: shmem_ctx_long_atomic_set, long long: shmem_ctx_longlong_atomic_set, unsigned int: shmem_ctx_uint_atomic_set, unsigned long: shmem_ctx_ulong_atomic_set, unsigned long long: shmem_ctx_ulonglong_atomic_set)(ctx, dest, value, pe)
#define shmem_atomic_swap(...) SHMEM_C11_CAT(shmem_atomic_swap_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_atomic_swap_c11_3(dest, value, pe) _Generic(*(dest), float: shmem_float_atomic_swap, double: shmem_double_atomic_swap, int: shmem_int_atomic_swap, long: shmem_long_atomic_swap, long long: shmem_longlong_atomic_swap, unsigned int: shmem_uint_atomic_swap, unsigned long: shmem_ulong_atomic_swap, unsigned long long: shmem_ulonglong_atomic_swap)(dest, value, pe)
#define shmem_atomic_swap_c11_4(ctx, dest, value, pe) _Generic(*(dest), float: shmem_ctx_float_atomic_swap, double: shmem_ctx_double_atomic_swap, int: shmem_ctx_int_atomic_swap, long: shmem_ctx_long_atomic_swap, long long: shmem_ctx_longlong_atomic_swap, unsigned int: shmem_ctx_uint_atomic_swap, unsigned long: shmem_ctx_ulong_atomic_swap, unsigned long long: shmem_ctx_ulonglong_atomic_swap)(ctx, dest, value, pe)
#define shmem_atomic_fetch_nbi(...) SHMEM_C11_CAT(shmem_atomic_fetch_nbi_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_atomic_fetch_nbi_c11_3(fetch, source, pe) _Generic(*(fetch), float: shmem_float_atomic_fetch_nbi, double: shmem_double_atomic_fetch_nbi, int: shmem_int_atomic_fetch_nbi, long: shmem_long_atomic_fetch_nbi, long long: shmem_longlong_atomic_fetch_nbi, unsigned int: shmem_uint_atomic_fetch_nbi, unsigned long: shmem_ulong_atomic_fetch_nbi, unsigned long long: shmem_ulonglong_atomic_fetch_nbi)(fetch, source, pe)
#define shmem_atomic_fetch_nbi_c11_4(ctx, fetch, source, pe) _Generic(*(fetch), float: shmem_ctx_float_atomic_fetch_nbi, double: shmem_ctx_double_atomic_fetch_nbi, int: shmem_ctx_int_atomic_fetch_nbi, long: shmem_ctx_long_atomic_fetch_nbi, long long: shmem_ctx_longlong_atomic_fetch_nbi, unsigned int: shmem_ctx_uint_atomic_fetch_nbi, unsigned long: shmem_ctx_ulong_atomic_fetch_nbi, unsigned long long: shmem_ctx_ulonglong_atomic_fetch_nbi)(ctx, fetch, source, pe)
#define shmem_atomic_swap_nbi(...) SHMEM_C11_CAT(shmem_atomic_swap_nbi_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_atomic_swap_nbi_c11_4(fetch, dest, value, pe) _Generic(*(fetch), float: shmem_float_atomic_swap_nbi, double: shmem_double_atomic_swap_nbi, int: shmem_int_atomic_swap_nbi, long: shmem_long_atomic_swap_nbi, long long: shmem_longlong_atomic_swap_nbi, unsigned int: shmem_uint_atomic_swap_nbi, unsigned long: shmem_ulong_atomic_swap_nbi, unsigned long long: shmem_ulonglong_atomic_swap_nbi)(fetch, dest, value, pe)
#define shmem_atomic_swap_nbi_c11_5(ctx, fetch, dest, value, pe) _Generic(*(fetch), float: shmem_ctx_float_atomic_swap_nbi, double: shmem_ctx_double_atomic_swap_nbi, int: shmem_ctx_int_atomic_swap_nbi, long: shmem_ctx_long_atomic_swap_nbi, long long: shmem_ctx_longlong_atomic_swap_nbi, unsigned int: shmem_ctx_uint_atomic_swap_nbi, unsigned long: shmem_ctx_ulong_atomic_swap_nbi, unsigned long long: shmem_ctx_ulonglong_atomic_swap_nbi)(ctx, fetch, dest, value, pe)
#define shmem_atomic_compare_swap(...) SHMEM_C11_CAT(shmem_atomic_compare_swap_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_atomic_compare_swap_c11_4(dest, cond, value, pe) _Generic(*(dest), int: shmem_int_atomic_compare_swap, long: shmem_long_atomic_compare_swap, long long: shmem_longlong_atomic_compare_swap, unsigned int: shmem_uint_atomic_compare_swap, unsigned long: shmem_ulong_atomic_compare_swap, unsigned long long: shmem_ulonglong_atomic_compare_swap)(dest, cond, value, pe)
#define shmem_atomic_compare_swap_c11_5(ctx, dest, cond, value, pe) _Generic(*(dest), int: shmem_ctx_int_atomic_compare_swap, long: shmem_ctx_long_atomic_compare_swap, long long: shmem_ctx_longlong_atomic_compare_swap, unsigned int: shmem_ctx_uint_atomic_compare_swap, unsigned long: shmem_ctx_ulong_atomic_compare_swap, unsigned long long: shmem_ctx_ulonglong_atomic_compare_swap)(ctx, dest, cond, value, pe)
#define shmem_atomic_fetch_inc(...) SHMEM_C11_CAT(shmem_atomic_fetch_inc_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_atomic_fetch_inc_c11_2(dest, pe) _Generic(*(dest), int: shmem_int_atomic_fetch_inc, long: shmem_long_atomic_fetch_inc, long long: shmem_longlong_atomic_fetch_inc, unsigned int: shmem_uint_atomic_fetch_inc, unsigned long: shmem_ulong_atomic_fetch_inc, unsigned long long: shmem_ulonglong_atomic_fetch_inc)(dest, pe)
#define shmem_atomic_fetch_inc_c11_3(ctx, dest, pe) _Generic(*(dest), int: shmem_ctx_int_atomic_fetch_inc, long: shmem_ctx_long_atomic_fetch_inc, long long: shmem_ctx_longlong_atomic_fetch_inc, unsigned int: shmem_ctx_uint_atomic_fetch_inc, unsigned long: shmem_ctx_ulong_atomic_fetch_inc, unsigned long long: shmem_ctx_ulonglong_atomic_fetch_inc)(ctx, dest, pe)
#define shmem_atomic_inc(...) SHMEM_C11_CAT(shmem_atomic_inc_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_atomic_inc_c11_2(dest, pe) _Generic(*(dest), int: shmem_int_atomic_inc, long: shmem_long_atomic_inc, long long: shmem_longlong_atomic_inc, unsigned int: shmem_uint_atomic_inc, unsigned long: shmem_ulong_atomic_inc, unsigned long long: shmem_ulonglong_atomic_inc)(dest, pe)
#define shmem_atomic_inc_c11_3(ctx, dest, pe) _Generic(*(dest), int: shmem_ctx_int_atomic_inc, long: shmem_ctx_long_atomic_inc, long long: shmem_ctx_longlong_atomic_inc, unsigned int: shmem_ctx_uint_atomic_inc, unsigned long: shmem_ctx_ulong_atomic_inc, unsigned long long: shmem_ctx_ulonglong_atomic_inc)(ctx, dest, pe)
#define shmem_atomic_fetch_add(...) SHMEM_C11_CAT(shmem_atomic_fetch_add_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_atomic_fetch_add_c11_3(dest, value, pe) _Generic(*(dest), int: shmem_int_atomic_fetch_add, long: shmem_long_atomic_fetch_add, long long: shmem_longlong_atomic_fetch_add, unsigned int: shmem_uint_atomic_fetch_add, unsigned long: shmem_ulong_atomic_fetch_add, unsigned long long: shmem_ulonglong_atomic_fetch_add)(dest, value, pe)
#define shmem_atomic_fetch_add_c11_4(ctx, dest, value, pe) _Generic(*(dest), int: shmem_ctx_int_atomic_fetch_add, long: shmem_ctx_long_atomic_fetch_add, long long: shmem_ctx_longlong_atomic_fetch_add, unsigned int: shmem_ctx_uint_atomic_fetch_add, unsigned long: shmem_ctx_ulong_atomic_fetch_add, unsigned long long: shmem_ctx_ulonglong_atomic_fetch_add)(ctx, dest, value, pe)
#define shmem_atomic_add(...) SHMEM_C11_CAT(shmem_atomic_add_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_atomic_add_c11_3(dest, value, pe) _Generic(*(dest), int: shmem_int_atomic_add, long: shmem_long_atomic_add, long long: shmem_longlong_atomic_add, unsigned int: shmem_uint_atomic_add, unsigned long: shmem_ulong_atomic_add, unsigned long long: shmem_ulonglong_atomic_add)(dest, value, pe)
#define shmem_atomic_add_c11_4(ctx, dest, value, pe) _Generic(*(dest), int: shmem_ctx_int_atomic_add, long: shmem_ctx_long_atomic_add, long long: shmem_ctx_longlong_atomic_add, unsigned int: shmem_ctx_uint_atomic_add, unsigned long: shmem_ctx_ulong_atomic_add, unsigned long long: shmem_ctx_ulonglong_atomic_add)(ctx, dest, value, pe)
#define shmem_atomic_compare_swap_nbi(...) SHMEM_C11_CAT(shmem_atomic_compare_swap_nbi_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_atomic_compare_swap_nbi_c11_5(fetch, dest, cond, value, pe) _Generic(*(fetch), int: shmem_int_atomic_compare_swap_nbi, long: shmem_long_atomic_compare_swap_nbi, long long: shmem_longlong_atomic_compare_swap_nbi, unsigned int: shmem_uint_atomic_compare_swap_nbi, unsigned long: shmem_ulong_atomic_compare_swap_nbi, unsigned long long: shmem_ulonglong_atomic_compare_swap_nbi)(fetch, dest, cond, value, pe)
#define shmem_atomic_compare_swap_nbi_c11_6(ctx, fetch, dest, cond, value, pe) _Generic(*(fetch), int: shmem_ctx_int_atomic_compare_swap_nbi, long: shmem_ctx_long_atomic_compare_swap_nbi, long long: shmem_ctx_longlong_atomic_compare_swap_nbi, unsigned int: shmem_ctx_uint_atomic_compare_swap_nbi, unsigned long: shmem_ctx_ulong_atomic_compare_swap_nbi, unsigned long long: shmem_ctx_ulonglong_atomic_compare_swap_nbi)(ctx, fetch, dest, cond, value, pe)
#define shmem_atomic_fetch_inc_nbi(...) SHMEM_C11_CAT(shmem_atomic_fetch_inc_nbi_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi_c11_3(fetch, dest, pe) _Generic(*(fetch), int: shmem_int_atomic_fetch_inc_nbi, long: shmem_long_atomic_fetch_inc_nbi, long long: shmem_longlong_atomic_fetch_inc_nbi, unsigned int: shmem_uint_atomic_fetch_inc_nbi, unsigned long: shmem_ulong_atomic_fetch_inc_nbi, unsigned long long: shmem_ulonglong_atomic_fetch_inc_nbi)(fetch, dest, pe)
#define shmem_atomic_fetch_inc_nbi_c11_4(ctx, fetch, dest, pe) _Generic(*(fetch), int: shmem_ctx_int_atomic_fetch_inc_nbi, long: shmem_ctx_long_atomic_fetch_inc_nbi, long long: shmem_ctx_longlong_atomic_fetch_inc_nbi, unsigned int: shmem_ctx_uint_atomic_fetch_inc_nbi, unsigned long: shmem_ctx_ulong_atomic_fetch_inc_nbi, unsigned long long: shmem_ctx_ulonglong_atomic_fetch_inc_nbi)(ctx, fetch, dest, pe)
#define shmem_atomic_fetch_add_nbi(...) SHMEM_C11_CAT(shmem_atomic_fetch_add_nbi_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_atomic_fetch_add_nbi_c11_4(fetch, dest, value, pe) _Generic(*(fetch), int: shmem_int_atomic_fetch_add_nbi, long: shmem_long_atomic_fetch_add_nbi, long long: shmem_longlong_atomic_fetch_add_nbi, unsigned int: shmem_uint_atomic_fetch_add_nbi, unsigned long: shmem_ulong_atomic_fetch_add_nbi, unsigned long long: shmem_ulonglong_atomic_fetch_add_nbi)(fetch, dest, value, pe)
#define shmem_atomic_fetch_add_nbi_c11_5(ctx, fetch, dest, value, pe) _Generic(*(fetch), int: shmem_ctx_int_atomic_fetch_add_nbi, long: shmem_ctx_long_atomic_fetch_add_nbi, long long: shmem_ctx_longlong_atomic_fetch_add_nbi, unsigned int: shmem_ctx_uint_atomic_fetch_add_nbi, unsigned long: shmem_ctx_ulong_atomic_fetch_add_nbi, unsigned long long: shmem_ctx_ulonglong_atomic_fetch_add_nbi)(ctx, fetch, dest, value, pe)
#define shmem_atomic_fetch_and(...) SHMEM_C11_CAT(shmem_atomic_fetch_and_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_atomic_fetch_and_c11_3(dest, value, pe) _Generic(*(dest), unsigned int: shmem_uint_atomic_fetch_and, unsigned long: shmem_ulong_atomic_fetch_and, unsigned long long: shmem_ulonglong_atomic_fetch_and, int: shmem_int32_atomic_fetch_and, long long: shmem_int64_atomic_fetch_and)(dest, value, pe)
#define shmem_atomic_fetch_and_c11_4(ctx, dest, value, pe) _Generic(*(dest), unsigned int: shmem_ctx_uint_atomic_fetch_and, unsigned long: shmem_ctx_ulong_atomic_fetch_and, unsigned long long: shmem_ctx_ulonglong_atomic_fetch_and, int: shmem_ctx_int32_atomic_fetch_and, long long: shmem_ctx_int64_atomic_fetch_and)(ctx, dest, value, pe)
#define shmem_atomic_and(...) SHMEM_C11_CAT(shmem_atomic_and_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_atomic_and_c11_3(dest, value, pe) _Generic(*(dest), unsigned int: shmem_uint_atomic_and, unsigned long: shmem_ulong_atomic_and, unsigned long long: shmem_ulonglong_atomic_and, int: shmem_int32_atomic_and, long long: shmem_int64_atomic_and)(dest, value, pe)
#define shmem_atomic_and_c11_4(ctx, dest, value, pe) _Generic(*(dest), unsigned int: shmem_ctx_uint_atomic_and, unsigned long: shmem_ctx_ulong_atomic_and, unsigned long long: shmem_ctx_ulonglong_atomic_and, int: shmem_ctx_int32_atomic_and, long long: shmem_ctx_int64_atomic_and)(ctx, dest, value, pe)
#define shmem_atomic_fetch_and_nbi(...) SHMEM_C11_CAT(shmem_atomic_fetch_and_nbi_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_atomic_fetch_and_nbi_c11_4(fetch, dest, value, pe) _Generic(*(fetch), unsigned int: shmem_uint_atomic_fetch_and_nbi, unsigned long: shmem_ulong_atomic_fetch_and_nbi, unsigned long long: shmem_ulonglong_atomic_fetch_and_nbi, int: shmem_int32_atomic_fetch_and_nbi, long long: shmem_int64_atomic_fetch_and_nbi)(fetch, dest, value, pe)
#define shmem_atomic_fetch_and_nbi_c11_5(ctx, fetch, dest, value, pe) _Generic(*(fetch), unsigned int: shmem_ctx_uint_atomic_fetch_and_nbi, unsigned long: shmem_ctx_ulong_atomic_fetch_and_nbi, unsigned long long: shmem_ctx_ulonglong_atomic_fetch_and_nbi, int: shmem_ctx_int32_atomic_fetch_and_nbi, long long: shmem_ctx_int64_atomic_fetch_and_nbi)(ctx, fetch, dest, value, pe)
#define shmem_atomic_fetch_or(...) SHMEM_C11_CAT(shmem_atomic_fetch_or_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_atomic_fetch_or_c11_3(dest, value, pe) _Generic(*(dest), unsigned int: shmem_uint_atomic_fetch_or, unsigned long: shmem_ulong_atomic_fetch_or, unsigned long long: shmem_ulonglong_atomic_fetch_or, int: shmem_int32_atomic_fetch_or, long long: shmem_int64_atomic_fetch_or)(dest, value, pe)
#define shmem_atomic_fetch_or_c11_4(ctx, dest, value, pe) _Generic(*(dest), unsigned int: shmem_ctx_uint_atomic_fetch_or, unsigned long: shmem_ctx_ulong_atomic_fetch_or, unsigned long long: shmem_ctx_ulonglong_atomic_fetch_or, int: shmem_ctx_int32_atomic_fetch_or, long long: shmem_ctx_int64_atomic_fetch_or)(ctx, dest, value, pe)
#define shmem_atomic_or(...) SHMEM_C11_CAT(shmem_atomic_or_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_atomic_or_c11_3(dest, value, pe) _Generic(*(dest), unsigned int: shmem_uint_atomic_or, unsigned long: shmem_ulong_atomic_or, unsigned long long: shmem_ulonglong_atomic_or, int: shmem_int32_atomic_or, long long: shmem_int64_atomic_or)(dest, value, pe)
#define shmem_atomic_or_c11_4(ctx, dest, value, pe) _Generic(*(dest), unsigned int: shmem_ctx_uint_atomic_or, unsigned long: shmem_ctx_ulong_atomic_or, unsigned long long: shmem_ctx_ulonglong_atomic_or, int: shmem_ctx_int32_atomic_or, long long: shmem_ctx_int64_atomic_or)(ctx, dest, value, pe)
#define shmem_atomic_fetch_or_nbi(...) SHMEM_C11_CAT(shmem_atomic_fetch_or_nbi_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_atomic_fetch_or_nbi_c11_4(fetch, dest, value, pe) _Generic(*(fetch), unsigned int: shmem_uint_atomic_fetch_or_nbi, unsigned long: shmem_ulong_atomic_fetch_or_nbi, unsigned long long: shmem_ulonglong_atomic_fetch_or_nbi, int: shmem_int32_atomic_fetch_or_nbi, long long: shmem_int64_atomic_fetch_or_nbi)(fetch, dest, value, pe)
#define shmem_atomic_fetch_or_nbi_c11_5(ctx, fetch, dest, value, pe) _Generic(*(fetch), unsigned int: shmem_ctx_uint_atomic_fetch_or_nbi, unsigned long: shmem_ctx_ulong_atomic_fetch_or_nbi, unsigned long long: shmem_ctx_ulonglong_atomic_fetch_or_nbi, int: shmem_ctx_int32_atomic_fetch_or_nbi, long long: shmem_ctx_int64_atomic_fetch_or_nbi)(ctx, fetch, dest, value, pe)
#define shmem_atomic_fetch_xor(...) SHMEM_C11_CAT(shmem_atomic_fetch_xor_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_atomic_fetch_xor_c11_3(dest, value, pe) _Generic(*(dest), unsigned int: shmem_uint_atomic_fetch_xor, unsigned long: shmem_ulong_atomic_fetch_xor, unsigned long long: shmem_ulonglong_atomic_fetch_xor, int: shmem_int32_atomic_fetch_xor, long long: shmem_int64_atomic_fetch_xor)(dest, value, pe)
#define shmem_atomic_fetch_xor_c11_4(ctx, dest, value, pe) _Generic(*(dest), unsigned int: shmem_ctx_uint_atomic_fetch_xor, unsigned long: shmem_ctx_ulong_atomic_fetch_xor, unsigned long long: shmem_ctx_ulonglong_atomic_fetch_xor, int: shmem_ctx_int32_atomic_fetch_xor, long long: shmem_ctx_int64_atomic_fetch_xor)(ctx, dest, value, pe)
#define shmem_atomic_xor(...) SHMEM_C11_CAT(shmem_atomic_xor_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_atomic_xor_c11_3(dest, value, pe) _Generic(*(dest), unsigned int: shmem_uint_atomic_xor, unsigned long: shmem_ulong_atomic_xor, unsigned long long: shmem_ulonglong_atomic_xor, int: shmem_int32_atomic_xor, long long: shmem_int64_atomic_xor)(dest, value, pe)
#define shmem_atomic_xor_c11_4(ctx, dest, value, pe) _Generic(*(dest), unsigned int: shmem_ctx_uint_atomic_xor, unsigned long: shmem_ctx_ulong_atomic_xor, unsigned long long: shmem_ctx_ulonglong_atomic_xor, int: shmem_ctx_int32_atomic_xor, long long: shmem_ctx_int64_atomic_xor)(ctx, dest, value, pe)
#define shmem_atomic_fetch_xor_nbi(...) SHMEM_C11_CAT(shmem_atomic_fetch_xor_nbi_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi_c11_4(fetch, dest, value, pe) _Generic(*(fetch), unsigned int: shmem_uint_atomic_fetch_xor_nbi, unsigned long: shmem_ulong_atomic_fetch_xor_nbi, unsigned long long: shmem_ulonglong_atomic_fetch_xor_nbi, int: shmem_int32_atomic_fetch_xor_nbi, long long: shmem_int64_atomic_fetch_xor_nbi)(fetch, dest, value, pe)
#define shmem_atomic_fetch_xor_nbi_c11_5(ctx, fetch, dest, value, pe) _Generic(*(fetch), unsigned int: shmem_ctx_uint_atomic_fetch_xor_nbi, unsigned long: shmem_ctx_ulong_atomic_fetch_xor_nbi, unsigned long long: shmem_ctx_ulonglong_atomic_fetch_xor_nbi, int: shmem_ctx_int32_atomic_fetch_xor_nbi, long long: shmem_ctx_int64_atomic_fetch_xor_nbi)(ctx, fetch, dest, value, pe)
#define shmem_wait_until(ivar, cmp, cmp_value) _Generic(*(ivar), int: shmem_int_wait_until, long: shmem_long_wait_until, long long: shmem_longlong_wait_until, unsigned int: shmem_uint_wait_until, unsigned long: shmem_ulong_wait_until, unsigned long long: shmem_ulonglong_wait_until, short: shmem_short_wait_until, unsigned short: shmem_ushort_wait_until)(ivar, cmp, cmp_value)
#define shmem_test(ivar, cmp, cmp_value) _Generic(*(ivar), int: shmem_int_test, long: shmem_long_test, long long: shmem_longlong_test, unsigned int: shmem_uint_test, unsigned long: shmem_ulong_test, unsigned long long: shmem_ulonglong_test, short: shmem_short_test, unsigned short: shmem_ushort_test)(ivar, cmp, cmp_value)
#define shmem_wait_until_all(ivars, nelems, status, cmp, cmp_value) _Generic(*(ivars), int: shmem_int_wait_until_all, long: shmem_long_wait_until_all, long long: shmem_longlong_wait_until_all, unsigned int: shmem_uint_wait_until_all, unsigned long: shmem_ulong_wait_until_all, unsigned long long: shmem_ulonglong_wait_until_all, short: shmem_short_wait_until_all, unsigned short: shmem_ushort_wait_until_all)(ivars, nelems, status, cmp, cmp_value)
#define shmem_wait_until_all_vector(ivars, nelems, status, cmp, cmp_values) _Generic(*(ivars), int: shmem_int_wait_until_all_vector, long: shmem_long_wait_until_all_vector, long long: shmem_longlong_wait_until_all_vector, unsigned int: shmem_uint_wait_until_all_vector, unsigned long: shmem_ulong_wait_until_all_vector, unsigned long long: shmem_ulonglong_wait_until_all_vector, short: shmem_short_wait_until_all_vector, unsigned short: shmem_ushort_wait_until_all_vector)(ivars, nelems, status, cmp, cmp_values)
#define shmem_wait_until_any(ivars, nelems, status, cmp, cmp_value) _Generic(*(ivars), int: shmem_int_wait_until_any, long: shmem_long_wait_until_any, long long: shmem_longlong_wait_until_any, unsigned int: shmem_uint_wait_until_any, unsigned long: shmem_ulong_wait_until_any, unsigned long long: shmem_ulonglong_wait_until_any, short: shmem_short_wait_until_any, unsigned short: shmem_ushort_wait_until_any)(ivars, nelems, status, cmp, cmp_value)
#define shmem_wait_until_any_vector(ivars, nelems, status, cmp, cmp_values) _Generic(*(ivars), int: shmem_int_wait_until_any_vector, long: shmem_long_wait_until_any_vector, long long: shmem_longlong_wait_until_any_vector, unsigned int: shmem_uint_wait_until_any_vector, unsigned long: shmem_ulong_wait_until_any_vector, unsigned long long: shmem_ulonglong_wait_until_any_vector, short: shmem_short_wait_until_any_vector, unsigned short: shmem_ushort_wait_until_any_vector)(ivars, nelems, status, cmp, cmp_values)
#define shmem_wait_until_some(ivars, nelems, indices, status, cmp, cmp_value) _Generic(*(ivars), int: shmem_int_wait_until_some, long: shmem_long_wait_until_some, long long: shmem_longlong_wait_until_some, unsigned int: shmem_uint_wait_until_some, unsigned long: shmem_ulong_wait_until_some, unsigned long long: shmem_ulonglong_wait_until_some, short: shmem_short_wait_until_some, unsigned short: shmem_ushort_wait_until_some)(ivars, nelems, indices, status, cmp, cmp_value)
#define shmem_wait_until_some_vector(ivars, nelems, indices, status, cmp, cmp_values) _Generic(*(ivars), int: shmem_int_wait_until_some_vector, long: shmem_long_wait_until_some_vector, long long: shmem_longlong_wait_until_some_vector, unsigned int: shmem_uint_wait_until_some_vector, unsigned long: shmem_ulong_wait_until_some_vector, unsigned long long: shmem_ulonglong_wait_until_some_vector, short: shmem_short_wait_until_some_vector, unsigned short: shmem_ushort_wait_until_some_vector)(ivars, nelems, indices, status, cmp, cmp_values)
#define shmem_test_all(ivars, nelems, status, cmp, cmp_value) _Generic(*(ivars), int: shmem_int_test_all, long: shmem_long_test_all, long long: shmem_longlong_test_all, unsigned int: shmem_uint_test_all, unsigned long: shmem_ulong_test_all, unsigned long long: shmem_ulonglong_test_all, short: shmem_short_test_all, unsigned short: shmem_ushort_test_all)(ivars, nelems, status, cmp, cmp_value)
#define shmem_test_all_vector(ivars, nelems, status, cmp, cmp_values) _Generic(*(ivars), int: shmem_int_test_all_vector, long: shmem_long_test_all_vector, long long: shmem_longlong_test_all_vector, unsigned int: shmem_uint_test_all_vector, unsigned long: shmem_ulong_test_all_vector, unsigned long long: shmem_ulonglong_test_all_vector, short: shmem_short_test_all_vector, unsigned short: shmem_ushort_test_all_vector)(ivars, nelems, status, cmp, cmp_values)
#define shmem_test_any(ivars, nelems, status, cmp, cmp_value) _Generic(*(ivars), int: shmem_int_test_any, long: shmem_long_test_any, long long: shmem_longlong_test_any, unsigned int: shmem_uint_test_any, unsigned long: shmem_ulong_test_any, unsigned long long: shmem_ulonglong_test_any, short: shmem_short_test_any, unsigned short: shmem_ushort_test_any)(ivars, nelems, status, cmp, cmp_value)
#define shmem_test_any_vector(ivars, nelems, status, cmp, cmp_values) _Generic(*(ivars), int: shmem_int_test_any_vector, long: shmem_long_test_any_vector, long long: shmem_longlong_test_any_vector, unsigned int: shmem_uint_test_any_vector, unsigned long: shmem_ulong_test_any_vector, unsigned long long: shmem_ulonglong_test_any_vector, short: shmem_short_test_any_vector, unsigned short: shmem_ushort_test_any_vector)(ivars, nelems, status, cmp, cmp_values)
#define shmem_test_some(ivars, nelems, indices, status, cmp, cmp_value) _Generic(*(ivars), int: shmem_int_test_some, long: shmem_long_test_some, long long: shmem_longlong_test_some, unsigned int: shmem_uint_test_some, unsigned long: shmem_ulong_test_some, unsigned long long: shmem_ulonglong_test_some, short: shmem_short_test_some, unsigned short: shmem_ushort_test_some)(ivars, nelems, indices, status, cmp, cmp_value)
#define shmem_test_some_vector(ivars, nelems, indices, status, cmp, cmp_values) _Generic(*(ivars), int: shmem_int_test_some_vector, long: shmem_long_test_some_vector, long long: shmem_longlong_test_some_vector, unsigned int: shmem_uint_test_some_vector, unsigned long: shmem_ulong_test_some_vector, unsigned long long: shmem_ulonglong_test_some_vector, short: shmem_short_test_some_vector, unsigned short: shmem_ushort_test_some_vector)(ivars, nelems, indices, status, cmp, cmp_values)
#define shmem_broadcast(team, dest, source, nelems, PE_root) _Generic(*(dest), float: shmem_float_broadcast, double: shmem_double_broadcast, long double: shmem_longdouble_broadcast, char: shmem_char_broadcast, signed char: shmem_schar_broadcast, short: shmem_short_broadcast, int: shmem_int_broadcast, long: shmem_long_broadcast, long long: shmem_longlong_broadcast, unsigned char: shmem_uchar_broadcast, unsigned short: shmem_ushort_broadcast, unsigned int: shmem_uint_broadcast, unsigned long: shmem_ulong_broadcast, unsigned long long: shmem_ulonglong_broadcast)(team, dest, source, nelems, PE_root)
#define shmem_collect(team, dest, source, nelems) _Generic(*(dest), float: shmem_float_collect, double: shmem_double_collect, long double: shmem_longdouble_collect, char: shmem_char_collect, signed char: shmem_schar_collect, short: shmem_short_collect, int: shmem_int_collect, long: shmem_long_collect, long long: shmem_longlong_collect, unsigned char: shmem_uchar_collect, unsigned short: shmem_ushort_collect, unsigned int: shmem_uint_collect, unsigned long: shmem_ulong_collect, unsigned long long: shmem_ulonglong_collect)(team, dest, source, nelems)
#define shmem_fcollect(team, dest, source, nelems) _Generic(*(dest), float: shmem_float_fcollect, double: shmem_double_fcollect, long double: shmem_longdouble_fcollect, char: shmem_char_fcollect, signed char: shmem_schar_fcollect, short: shmem_short_fcollect, int: shmem_int_fcollect, long: shmem_long_fcollect, long long: shmem_longlong_fcollect, unsigned char: shmem_uchar_fcollect, unsigned short: shmem_ushort_fcollect, unsigned int: shmem_uint_fcollect, unsigned long: shmem_ulong_fcollect, unsigned long long: shmem_ulonglong_fcollect)(team, dest, source, nelems)
#define shmem_alltoall(team, dest, source, nelems) _Generic(*(dest), float: shmem_float_alltoall, double: shmem_double_alltoall, long double: shmem_longdouble_alltoall, char: shmem_char_alltoall, signed char: shmem_schar_alltoall, short: shmem_short_alltoall, int: shmem_int_alltoall, long: shmem_long_alltoall, long long: shmem_longlong_alltoall, unsigned char: shmem_uchar_alltoall, unsigned short: shmem_ushort_alltoall, unsigned int: shmem_uint_alltoall, unsigned long: shmem_ulong_alltoall, unsigned long long: shmem_ulonglong_alltoall)(team, dest, source, nelems)
#define shmem_alltoalls(team, dest, source, dst, sst, nelems) _Generic(*(dest), float: shmem_float_alltoalls, double: shmem_double_alltoalls, long double: shmem_longdouble_alltoalls, char: shmem_char_alltoalls, signed char: shmem_schar_alltoalls, short: shmem_short_alltoalls, int: shmem_int_alltoalls, long: shmem_long_alltoalls, long long: shmem_longlong_alltoalls, unsigned char: shmem_uchar_alltoalls, unsigned short: shmem_ushort_alltoalls, unsigned int: shmem_uint_alltoalls, unsigned long: shmem_ulong_alltoalls, unsigned long long: shmem_ulonglong_alltoalls)(team, dest, source, dst, sst, nelems)
#define shmem_and_reduce(team, dest, source, nreduce) _Generic(*(dest), unsigned char: shmem_uchar_and_reduce, unsigned short: shmem_ushort_and_reduce, unsigned int: shmem_uint_and_reduce, unsigned long: shmem_ulong_and_reduce, unsigned long long: shmem_ulonglong_and_reduce, signed char: shmem_int8_and_reduce, short: shmem_int16_and_reduce, int: shmem_int32_and_reduce, long long: shmem_int64_and_reduce)(team, dest, source, nreduce)
#define shmem_or_reduce(team, dest, source, nreduce) _Generic(*(dest), unsigned char: shmem_uchar_or_reduce, unsigned short: shmem_ushort_or_reduce, unsigned int: shmem_uint_or_reduce, unsigned long: shmem_ulong_or_reduce, unsigned long long: shmem_ulonglong_or_reduce, signed char: shmem_int8_or_reduce, short: shmem_int16_or_reduce, int: shmem_int32_or_reduce, long long: shmem_int64_or_reduce)(team, dest, source, nreduce)
#define shmem_xor_reduce(team, dest, source, nreduce) _Generic(*(dest), unsigned char: shmem_uchar_xor_reduce, unsigned short: shmem_ushort_xor_reduce, unsigned int: shmem_uint_xor_reduce, unsigned long: shmem_ulong_xor_reduce, unsigned long long: shmem_ulonglong_xor_reduce, signed char: shmem_int8_xor_reduce, short: shmem_int16_xor_reduce, int: shmem_int32_xor_reduce, long long: shmem_int64_xor_reduce)(team, dest, source, nreduce)
#define shmem_max_reduce(team, dest, source, nreduce) _Generic(*(dest), char: shmem_char_max_reduce, signed char: shmem_schar_max_reduce, short: shmem_short_max_reduce, int: shmem_int_max_reduce, long: shmem_long_max_reduce, long long: shmem_longlong_max_reduce, unsigned char: shmem_uchar_max_reduce, unsigned short: shmem_ushort_max_reduce, unsigned int: shmem_uint_max_reduce, unsigned long: shmem_ulong_max_reduce, unsigned long long: shmem_ulonglong_max_reduce, float: shmem_float_max_reduce, double: shmem_double_max_reduce, long double: shmem_longdouble_max_reduce)(team, dest, source, nreduce)
#define shmem_min_reduce(team, dest, source, nreduce) _Generic(*(dest), char: shmem_char_min_reduce, signed char: shmem_schar_min_reduce, short: shmem_short_min_reduce, int: shmem_int_min_reduce, long: shmem_long_min_reduce, long long: shmem_longlong_min_reduce, unsigned char: shmem_uchar_min_reduce, unsigned short: shmem_ushort_min_reduce, unsigned int: shmem_uint_min_reduce, unsigned long: shmem_ulong_min_reduce, unsigned long long: shmem_ulonglong_min_reduce, float: shmem_float_min_reduce, double: shmem_double_min_reduce, long double: shmem_longdouble_min_reduce)(team, dest, source, nreduce)
#define shmem_sum_reduce(team, dest, source, nreduce) _Generic(*(dest), char: shmem_char_sum_reduce, signed char: shmem_schar_sum_reduce, short: shmem_short_sum_reduce, int: shmem_int_sum_reduce, long: shmem_long_sum_reduce, long long: shmem_longlong_sum_reduce, unsigned char: shmem_uchar_sum_reduce, unsigned short: shmem_ushort_sum_reduce, unsigned int: shmem_uint_sum_reduce, unsigned long: shmem_ulong_sum_reduce, unsigned long long: shmem_ulonglong_sum_reduce, float: shmem_float_sum_reduce, double: shmem_double_sum_reduce, long double: shmem_longdouble_sum_reduce, float _Complex: shmem_complexf_sum_reduce, double _Complex: shmem_complexd_sum_reduce)(team, dest, source, nreduce)
#define shmem_prod_reduce(team, dest, source, nreduce) _Generic(*(dest), char: shmem_char_prod_reduce, signed char: shmem_schar_prod_reduce, short: shmem_short_prod_reduce, int: shmem_int_prod_reduce, long: shmem_long_prod_reduce, long long: shmem_longlong_prod_reduce, unsigned char: shmem_uchar_prod_reduce, unsigned short: shmem_ushort_prod_reduce, unsigned int: shmem_uint_prod_reduce, unsigned long: shmem_ulong_prod_reduce, unsigned long long: shmem_ulonglong_prod_reduce, float: shmem_float_prod_reduce, double: shmem_double_prod_reduce, long double: shmem_longdouble_prod_reduce, float _Complex: shmem_complexf_prod_reduce, double _Complex: shmem_complexd_prod_reduce)(team, dest, source, nreduce)
/* shmem_sync(team) is shmem_team_sync; with four arguments it is the
 * deprecated active-set form. */
#define shmem_sync(...) SHMEM_C11_CAT(shmem_sync_c11_, SHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmem_sync_c11_1(team) shmem_team_sync(team)
#define shmem_sync_c11_4(PE_start, logPE_stride, PE_size, pSync) (shmem_sync)(PE_start, logPE_stride, PE_size, pSync)
#endif /* C11 */

#ifdef __cplusplus
}
#endif

#endif /* SHMEM_H */
