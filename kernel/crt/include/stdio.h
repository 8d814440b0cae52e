/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* stdio.h: formatted output to strings and to the two output streams
 * (C11 7.21, a subset). There are no files: stdout (line-buffered unless
 * setvbuf says otherwise) and stderr (unbuffered) are the only streams,
 * both written through the kernel's write hook. No input stream: no
 * stdin, scanf, fgets or getchar; sscanf reads a string. */
#ifndef CRT_STDIO_H
#define CRT_STDIO_H

#include <stdarg.h>
#include <stddef.h>

/** A stream; its contents are the library's business. */
typedef struct __crt_file FILE;

/** The standard output stream: line-buffered. */
extern FILE *const stdout;
/** The standard error stream: unbuffered. */
extern FILE *const stderr;
#ifndef stdout
#define stdout stdout
#endif
#ifndef stderr
#define stderr stderr
#endif

#define EOF (-1)
#define BUFSIZ 1024
/* Buffering modes for setvbuf. */
#define _IOFBF 0
#define _IOLBF 1
#define _IONBF 2

int printf(const char *restrict format, ...) __attribute__((__format__(__printf__, 1, 2)));
int fprintf(FILE *restrict stream, const char *restrict format, ...)
    __attribute__((__format__(__printf__, 2, 3)));
int sprintf(char *restrict s, const char *restrict format, ...)
    __attribute__((__format__(__printf__, 2, 3)));
int snprintf(char *restrict s, size_t n, const char *restrict format, ...)
    __attribute__((__format__(__printf__, 3, 4)));
int vprintf(const char *restrict format, va_list ap) __attribute__((__format__(__printf__, 1, 0)));
int vfprintf(FILE *restrict stream, const char *restrict format, va_list ap)
    __attribute__((__format__(__printf__, 2, 0)));
int vsprintf(char *restrict s, const char *restrict format, va_list ap)
    __attribute__((__format__(__printf__, 2, 0)));
int vsnprintf(char *restrict s, size_t n, const char *restrict format, va_list ap)
    __attribute__((__format__(__printf__, 3, 0)));

int sscanf(const char *restrict s, const char *restrict format, ...)
    __attribute__((__format__(__scanf__, 2, 3)));
int vsscanf(const char *restrict s, const char *restrict format, va_list ap)
    __attribute__((__format__(__scanf__, 2, 0)));

int fputc(int c, FILE *stream);
int putc(int c, FILE *stream);
int putchar(int c);
int fputs(const char *restrict s, FILE *restrict stream);
int puts(const char *s);
size_t fwrite(const void *restrict ptr, size_t size, size_t nmemb, FILE *restrict stream);
int fflush(FILE *stream);
int setvbuf(FILE *restrict stream, char *restrict buf, int mode, size_t size);
void setbuf(FILE *restrict stream, char *restrict buf);
void perror(const char *s);

#endif
