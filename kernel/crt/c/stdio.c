/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The two output streams. stdout is line-buffered: bytes collect in a
 * buffer that goes to the write hook at each newline, when full, and at
 * fflush, exit and abort; setvbuf can make it fully buffered (no write
 * at newlines) or unbuffered (each call is one write), always with the
 * library's own buffer. stderr is unbuffered: each call is one write
 * (the printf family writes in pieces of 256 bytes), after stdout's
 * buffer has been written, so that the two keep their order on a console
 * that shows both. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "crt_hooks.h"
#include "internal.h"

/** A stream: only its descriptor. */
struct __crt_file {
    int fd;
};

static struct __crt_file out_file = {1};
static struct __crt_file err_file = {2};
FILE *const stdout = &out_file;
FILE *const stderr = &err_file;

static char out_buf[BUFSIZ];
static size_t out_len;
static int out_mode = _IOLBF;

static void flush_stdout(void)
{
    if (out_len != 0) {
        __crt_write(1, out_buf, out_len);
        out_len = 0;
    }
}

int __crt_stream_fd(FILE *stream);

/* The descriptor behind a stream: 1 or 2. */
int __crt_stream_fd(FILE *stream)
{
    return stream == stderr ? 2 : 1;
}

void __crt_stream_write(int fd, const char *buf, size_t len)
{
    if (len == 0) {
        return;
    }
    if (fd == 2 || out_mode == _IONBF) {
        flush_stdout();
        __crt_write(fd, buf, len);
        return;
    }
    while (len > 0) {
        size_t room = sizeof out_buf - out_len;
        size_t k = len < room ? len : room;
        int line = 0;
        for (size_t i = out_mode == _IOLBF ? k : 0; i > 0; i--) {
            if (buf[i - 1] == '\n') {
                /* Up to the last newline now; the rest waits. */
                k = i;
                line = 1;
                break;
            }
        }
        memcpy(out_buf + out_len, buf, k);
        out_len += k;
        buf += k;
        len -= k;
        if (line || out_len == sizeof out_buf) {
            flush_stdout();
        }
    }
}

int fflush(FILE *stream)
{
    if (stream == NULL || stream == stdout) {
        flush_stdout();
    }
    return 0;
}

/* Sets stdout's buffering (buf and size are ignored: the library keeps
 * its own buffer); stderr only takes _IONBF, which it already is. Returns
 * nonzero for an unknown mode or a mode stderr cannot have. */
int setvbuf(FILE *restrict stream, char *restrict buf, int mode, size_t size)
{
    (void)buf;
    (void)size;
    if (mode != _IOFBF && mode != _IOLBF && mode != _IONBF) {
        return -1;
    }
    if (stream == stderr) {
        return mode == _IONBF ? 0 : -1;
    }
    flush_stdout();
    out_mode = mode;
    return 0;
}

void setbuf(FILE *restrict stream, char *restrict buf)
{
    setvbuf(stream, buf, buf != NULL ? _IOFBF : _IONBF, BUFSIZ);
}

int fputc(int c, FILE *stream)
{
    char ch = (char)c;
    __crt_stream_write(__crt_stream_fd(stream), &ch, 1);
    return (unsigned char)ch;
}

int putc(int c, FILE *stream)
{
    return fputc(c, stream);
}

int putchar(int c)
{
    return fputc(c, stdout);
}

int fputs(const char *restrict s, FILE *restrict stream)
{
    __crt_stream_write(__crt_stream_fd(stream), s, strlen(s));
    return 0;
}

int puts(const char *s)
{
    __crt_stream_write(1, s, strlen(s));
    __crt_stream_write(1, "\n", 1);
    return 0;
}

size_t fwrite(const void *restrict ptr, size_t size, size_t nmemb, FILE *restrict stream)
{
    if (size == 0 || nmemb == 0) {
        return 0;
    }
    if (nmemb > (size_t)-1 / size) {
        errno = EOVERFLOW;
        return 0;
    }
    __crt_stream_write(__crt_stream_fd(stream), ptr, size * nmemb);
    return nmemb;
}

void perror(const char *s)
{
    if (s != NULL && *s != '\0') {
        fprintf(stderr, "%s: %s\n", s, strerror(errno));
    } else {
        fprintf(stderr, "%s\n", strerror(errno));
    }
}
