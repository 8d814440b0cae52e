/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Host test builds only (build.rs passes -include test/rename.h): renames
 * every public symbol of the library NAME to crt_NAME, so the host test
 * binary links both this library and the host's own C library without a
 * clash, and the tests can call either. memcpy, memmove, memset and memcmp
 * are not renamed: the library uses them and does not define them (the
 * kernel does on the guest, the host's C library in the tests). The hooks
 * (__crt_*) keep their names: the tests define them. */
#ifndef CRT_RENAME_H
#define CRT_RENAME_H

#define _Exit crt__Exit
#define abort crt_abort
#define abs crt_abs
#define aligned_alloc crt_aligned_alloc
#define atexit crt_atexit
#define atof crt_atof
#define atoi crt_atoi
#define atol crt_atol
#define atoll crt_atoll
#define bsearch crt_bsearch
#define calloc crt_calloc
#define ceil crt_ceil
#define clock crt_clock
#define clock_getres crt_clock_getres
#define clock_gettime crt_clock_gettime
#define copysign crt_copysign
#define cos crt_cos
#define difftime crt_difftime
#define div crt_div
#define errno crt_errno
#define exit crt_exit
#define exp crt_exp
#define fabs crt_fabs
#define fabsf crt_fabsf
#define fflush crt_fflush
#define floor crt_floor
#define fmod crt_fmod
#define fprintf crt_fprintf
#define fputc crt_fputc
#define fputs crt_fputs
#define free crt_free
#define fwrite crt_fwrite
#define getenv crt_getenv
#define getopt crt_getopt
#define getpagesize crt_getpagesize
#define imaxabs crt_imaxabs
#define imaxdiv crt_imaxdiv
#define isalnum crt_isalnum
#define isalpha crt_isalpha
#define isblank crt_isblank
#define iscntrl crt_iscntrl
#define isdigit crt_isdigit
#define isgraph crt_isgraph
#define islower crt_islower
#define isprint crt_isprint
#define ispunct crt_ispunct
#define isspace crt_isspace
#define isupper crt_isupper
#define isxdigit crt_isxdigit
#define labs crt_labs
#define ldiv crt_ldiv
#define llabs crt_llabs
#define lldiv crt_lldiv
#define malloc crt_malloc
#define memchr crt_memchr
#define optarg crt_optarg
#define opterr crt_opterr
#define optind crt_optind
#define optopt crt_optopt
#define perror crt_perror
#define posix_memalign crt_posix_memalign
#define printf crt_printf
#define putc crt_putc
#define putchar crt_putchar
#define puts crt_puts
#define qsort crt_qsort
#define rand crt_rand
#define realloc crt_realloc
#define round crt_round
#define setbuf crt_setbuf
#define setvbuf crt_setvbuf
#define sin crt_sin
#define snprintf crt_snprintf
#define sprintf crt_sprintf
#define sqrt crt_sqrt
#define sqrtf crt_sqrtf
#define srand crt_srand
#define stderr crt_stderr
#define stdout crt_stdout
#define strcasecmp crt_strcasecmp
#define strcat crt_strcat
#define strchr crt_strchr
#define strcmp crt_strcmp
#define strcoll crt_strcoll
#define strcpy crt_strcpy
#define strcspn crt_strcspn
#define strdup crt_strdup
#define strerror crt_strerror
#define strlen crt_strlen
#define strncasecmp crt_strncasecmp
#define strncat crt_strncat
#define strncmp crt_strncmp
#define strncpy crt_strncpy
#define strndup crt_strndup
#define strnlen crt_strnlen
#define strpbrk crt_strpbrk
#define strrchr crt_strrchr
#define strspn crt_strspn
#define strstr crt_strstr
#define strtod crt_strtod
#define strtof crt_strtof
#define strtoimax crt_strtoimax
#define strtok crt_strtok
#define strtok_r crt_strtok_r
#define strtol crt_strtol
#define strtoll crt_strtoll
#define strtoul crt_strtoul
#define strtoull crt_strtoull
#define strtoumax crt_strtoumax
#define sysconf crt_sysconf
#define time crt_time
#define tolower crt_tolower
#define toupper crt_toupper
#define trunc crt_trunc
#define vfprintf crt_vfprintf
#define vprintf crt_vprintf
#define vsnprintf crt_vsnprintf
#define vsprintf crt_vsprintf

#endif
