/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Formatted output: one engine (format) writes to a sink, which is either
 * a bounded string (vsnprintf and friends) or a stream (vfprintf and
 * friends).
 *
 * Conversions: d i u o x X c s p % and f F e E g G a A, with the flags
 * - + space # 0 (and ', which groups nothing in the "C" locale), width and precision (also as *), and the length
 * modifiers hh h l ll z j t L. Floating conversions round the exact
 * decimal expansion (dtoa.c) once, to nearest with ties to even, as glibc
 * does in its default rounding mode. Not supported: %n (written out
 * literally, nothing stored), positional arguments (%1$d), wide
 * characters (%lc prints the byte, %ls and %C/%S are written literally).
 * Long double arguments (L) are converted to double first, so they carry
 * double's precision. Any other conversion is written out literally. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Where formatted characters go. */
struct sink {
    char *buf;    /* string output, or NULL */
    size_t cap;   /* room in buf, terminator included */
    int fd;       /* stream output: 1 or 2; 0 for a string */
    size_t count; /* characters produced (written or not) */
    size_t held;  /* characters held in chunk (streams) */
    char chunk[256];
};

static void sink_flush(struct sink *s)
{
    if (s->held != 0) {
        __crt_stream_write(s->fd, s->chunk, s->held);
        s->held = 0;
    }
}

static void out(struct sink *s, const char *p, size_t n)
{
    if (s->fd != 0) {
        while (n > 0) {
            size_t room = sizeof s->chunk - s->held;
            size_t k = n < room ? n : room;
            memcpy(s->chunk + s->held, p, k);
            s->held += k;
            p += k;
            n -= k;
            s->count += k;
            if (s->held == sizeof s->chunk) {
                sink_flush(s);
            }
        }
        return;
    }
    if (s->cap != 0 && s->count < s->cap - 1) {
        size_t room = s->cap - 1 - s->count;
        memcpy(s->buf + s->count, p, n < room ? n : room);
    }
    s->count += n;
}

static void out_char(struct sink *s, char c)
{
    out(s, &c, 1);
}

static void out_repeat(struct sink *s, char c, long long n)
{
    char block[32];
    memset(block, c, sizeof block);
    while (n > 0) {
        size_t k = n < (long long)sizeof block ? (size_t)n : sizeof block;
        out(s, block, k);
        n -= (long long)k;
    }
}

/* A parsed conversion specification. */
struct spec {
    int minus, plus, space, hash, zero;
    int width; /* 0 when absent */
    int prec;  /* -1 when absent */
    char conv;
};

/* Writes a field of len characters (prefix, then body) padded to the
 * width: spaces on the left or right, or zeros between prefix and body. */
static void out_field(struct sink *s, const struct spec *sp, const char *prefix, size_t plen,
                      long long zeros, const char *body, size_t blen)
{
    long long len = (long long)plen + zeros + (long long)blen;
    long long pad = sp->width > len ? sp->width - len : 0;
    if (!sp->minus) {
        out_repeat(s, ' ', pad);
    }
    out(s, prefix, plen);
    out_repeat(s, '0', zeros);
    out(s, body, blen);
    if (sp->minus) {
        out_repeat(s, ' ', pad);
    }
}

static void fmt_int(struct sink *s, const struct spec *sp, uintmax_t v, int negative)
{
    char digits[3 * sizeof(uintmax_t) + 2];
    char *end = digits + sizeof digits;
    char *p = end;
    unsigned base = 10;
    const char *xdigits = "0123456789abcdef";
    char prefix[3];
    size_t plen = 0;
    switch (sp->conv) {
    case 'o':
        base = 8;
        break;
    case 'X':
        xdigits = "0123456789ABCDEF";
        base = 16;
        break;
    case 'x':
    case 'p':
        base = 16;
        break;
    default:
        break;
    }
    if (v <= UINT32_MAX) {
        /* 32-bit division is much cheaper on a 32-bit core. */
        uint32_t w = (uint32_t)v;
        while (w != 0) {
            *--p = xdigits[w % base];
            w /= base;
        }
    } else {
        while (v != 0) {
            *--p = xdigits[v % base];
            v /= base;
        }
    }
    int ndig = (int)(end - p);
    int is_zero = ndig == 0;
    if (is_zero && sp->prec != 0) {
        *--p = '0';
        ndig = 1;
    }
    long long zeros = sp->prec > ndig ? sp->prec - ndig : 0;
    if (sp->conv == 'o' && sp->hash && zeros == 0 && (ndig == 0 || *p != '0')) {
        zeros = 1;
    }
    if (sp->conv == 'd' || sp->conv == 'i' || sp->conv == 'p') {
        /* glibc gives %p the sign flags too. */
        if (negative) {
            prefix[plen++] = '-';
        } else if (sp->plus) {
            prefix[plen++] = '+';
        } else if (sp->space) {
            prefix[plen++] = ' ';
        }
    }
    if ((sp->conv == 'x' || sp->conv == 'X') && sp->hash && !is_zero) {
        prefix[plen++] = '0';
        prefix[plen++] = sp->conv;
    }
    if (sp->conv == 'p') {
        prefix[plen++] = '0';
        prefix[plen++] = 'x';
    }
    if (sp->zero && !sp->minus && sp->prec < 0) {
        long long fill = (long long)sp->width - (long long)plen - ndig;
        if (fill > zeros) {
            zeros = fill;
        }
    }
    out_field(s, sp, prefix, plen, zeros, p, (size_t)ndig);
}

/* Rounds the digit string d (*n digits, value 0.d * 10^*point) to keep
 * significant digits, to nearest with ties to even. Trailing zeros are
 * dropped from the result. */
static void round_digits(char *d, int *n, int *point, long long keep)
{
    if (keep >= *n) {
        return;
    }
    if (keep < 0) {
        *n = 0;
        return;
    }
    int k = (int)keep;
    int up;
    if (d[k] > '5') {
        up = 1;
    } else if (d[k] < '5') {
        up = 0;
    } else if (*n > k + 1) {
        /* d has no trailing zeros: something nonzero follows the 5. */
        up = 1;
    } else {
        up = k > 0 && ((d[k - 1] - '0') & 1);
    }
    *n = k;
    if (up) {
        int i = k - 1;
        while (i >= 0 && d[i] == '9') {
            i--;
        }
        if (i < 0) {
            d[0] = '1';
            *n = 1;
            (*point)++;
        } else {
            d[i]++;
            *n = i + 1;
        }
    } else {
        while (*n > 0 && d[*n - 1] == '0') {
            (*n)--;
        }
    }
}

/* Digit i (0-based from the first significant one) of d, '0' past its end. */
static char digit_at(const char *d, int n, long long i)
{
    return i >= 0 && i < n ? d[i] : '0';
}

/* Writes d (rounded) in %f style with frac fraction digits. */
static void emit_fixed(struct sink *s, const struct spec *sp, const char *sign, const char *d,
                       int n, int point, long long frac, int show_point)
{
    long long intlen = point > 0 ? point : 1;
    size_t slen = strlen(sign);
    long long len = (long long)slen + intlen + (show_point ? 1 : 0) + frac;
    long long pad = sp->width > len ? sp->width - len : 0;
    if (!sp->minus && !sp->zero) {
        out_repeat(s, ' ', pad);
    }
    out(s, sign, slen);
    if (!sp->minus && sp->zero) {
        out_repeat(s, '0', pad);
    }
    if (point > 0) {
        int have = n < point ? n : point;
        out(s, d, (size_t)have);
        out_repeat(s, '0', point - have);
    } else {
        out_char(s, '0');
    }
    if (show_point) {
        out_char(s, '.');
    }
    /* Fraction: positions point .. point + frac - 1 of d. */
    long long i = point;
    long long end = (long long)point + frac;
    while (i < end && i < 0) {
        long long k = (end < 0 ? end : 0) - i;
        out_repeat(s, '0', k);
        i += k;
    }
    if (i < end && i < n) {
        long long stop = end < n ? end : n;
        out(s, d + i, (size_t)(stop - i));
        i = stop;
    }
    out_repeat(s, '0', end - i);
    if (sp->minus) {
        out_repeat(s, ' ', pad);
    }
}

/* Writes d (rounded) in %e style with frac fraction digits. */
static void emit_exp(struct sink *s, const struct spec *sp, const char *sign, const char *d,
                     int n, int point, long long frac, int show_point, char e)
{
    int x = n == 0 ? 0 : point - 1;
    char exp[8];
    int elen = 0;
    unsigned ux = x < 0 ? (unsigned)-x : (unsigned)x;
    char tmp[6];
    int t = 0;
    do {
        tmp[t++] = (char)('0' + ux % 10);
        ux /= 10;
    } while (ux != 0);
    if (t < 2) {
        tmp[t++] = '0';
    }
    exp[elen++] = e;
    exp[elen++] = x < 0 ? '-' : '+';
    while (t > 0) {
        exp[elen++] = tmp[--t];
    }
    size_t slen = strlen(sign);
    long long len = (long long)slen + 1 + (show_point ? 1 : 0) + frac + elen;
    long long pad = sp->width > len ? sp->width - len : 0;
    if (!sp->minus && !sp->zero) {
        out_repeat(s, ' ', pad);
    }
    out(s, sign, slen);
    if (!sp->minus && sp->zero) {
        out_repeat(s, '0', pad);
    }
    out_char(s, digit_at(d, n, 0));
    if (show_point) {
        out_char(s, '.');
    }
    long long have = n - 1 < frac ? n - 1 : frac;
    if (have > 0) {
        out(s, d + 1, (size_t)have);
    } else {
        have = 0;
    }
    out_repeat(s, '0', frac - have);
    out(s, exp, (size_t)elen);
    if (sp->minus) {
        out_repeat(s, ' ', pad);
    }
}

/* %a: hexadecimal significand and binary exponent, glibc's layout
 * (normal values as 0x1.hhhp+e, subnormals as 0x0.hhhp-1022). */
static void fmt_hex_float(struct sink *s, const struct spec *sp, const char *sign, uint64_t frac,
                          int bexp)
{
    int upper = sp->conv == 'A';
    const char *xdigits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    uint64_t lead;
    int e;
    if (bexp == 0) {
        lead = 0;
        e = frac == 0 ? 0 : -1022;
    } else {
        lead = 1;
        e = bexp - 1023;
    }
    int prec = sp->prec;
    if (prec >= 0 && prec < 13) {
        int drop = 4 * (13 - prec);
        uint64_t rem = frac & (((uint64_t)1 << drop) - 1);
        uint64_t half = (uint64_t)1 << (drop - 1);
        frac >>= drop;
        /* The last kept digit decides ties: the leading one at precision 0. */
        uint64_t last = prec == 0 ? lead : frac;
        if (rem > half || (rem == half && (last & 1))) {
            frac++;
            if (frac >> (4 * prec)) {
                frac = 0;
                lead++;
            }
        }
        frac <<= drop;
    }
    char digits[13];
    int nd = 13;
    for (int i = 12; i >= 0; i--) {
        digits[i] = xdigits[frac & 15];
        frac >>= 4;
    }
    if (prec < 0) {
        while (nd > 0 && digits[nd - 1] == '0') {
            nd--;
        }
        prec = nd;
    }
    char head[8];
    size_t hlen = strlen(sign);
    memcpy(head, sign, hlen);
    head[hlen++] = '0';
    head[hlen++] = upper ? 'X' : 'x';
    char body[24];
    size_t blen = 0;
    body[blen++] = xdigits[lead];
    if (prec > 0 || sp->hash) {
        body[blen++] = '.';
    }
    int shown = prec < 13 ? prec : 13;
    memcpy(body + blen, digits, (size_t)shown);
    blen += (size_t)shown;
    char tail[8];
    size_t tlen = 0;
    tail[tlen++] = upper ? 'P' : 'p';
    tail[tlen++] = e < 0 ? '-' : '+';
    unsigned ue = e < 0 ? (unsigned)-e : (unsigned)e;
    char tmp[6];
    int t = 0;
    do {
        tmp[t++] = (char)('0' + ue % 10);
        ue /= 10;
    } while (ue != 0);
    while (t > 0) {
        tail[tlen++] = tmp[--t];
    }
    long long extra = prec > 13 ? prec - 13 : 0;
    long long len = (long long)(hlen + blen + tlen) + extra;
    long long pad = sp->width > len ? sp->width - len : 0;
    if (!sp->minus && !sp->zero) {
        out_repeat(s, ' ', pad);
    }
    out(s, head, hlen);
    if (!sp->minus && sp->zero) {
        out_repeat(s, '0', pad);
    }
    out(s, body, blen);
    out_repeat(s, '0', extra);
    out(s, tail, tlen);
    if (sp->minus) {
        out_repeat(s, ' ', pad);
    }
}

static void fmt_float(struct sink *s, const struct spec *sp, double v)
{
    union {
        double d;
        uint64_t u;
    } bits = {v};
    int negative = (int)(bits.u >> 63);
    int bexp = (int)((bits.u >> 52) & 0x7ff);
    uint64_t frac = bits.u & (((uint64_t)1 << 52) - 1);
    int upper = sp->conv == 'F' || sp->conv == 'E' || sp->conv == 'G' || sp->conv == 'A';
    const char *sign = negative ? "-" : sp->plus ? "+" : sp->space ? " " : "";
    if (bexp == 0x7ff) {
        const char *text = frac != 0 ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf");
        struct spec plain = *sp;
        plain.zero = 0;
        out_field(s, &plain, sign, strlen(sign), 0, text, 3);
        return;
    }
    if (sp->conv == 'a' || sp->conv == 'A') {
        fmt_hex_float(s, sp, sign, frac, bexp);
        return;
    }
    char d[CRT_DIGITS_MAX];
    int point;
    uint64_t m = bexp == 0 ? frac : frac | ((uint64_t)1 << 52);
    int e2 = (bexp == 0 ? 1 : bexp) - 1075;
    int n = __crt_exact_digits(m, e2, d, &point);
    long long prec = sp->prec < 0 ? 6 : sp->prec;
    switch (sp->conv) {
    case 'f':
    case 'F':
        round_digits(d, &n, &point, (long long)point + prec);
        if (n == 0) {
            point = 0;
        }
        emit_fixed(s, sp, sign, d, n, point, prec, prec > 0 || sp->hash);
        return;
    case 'e':
    case 'E':
        round_digits(d, &n, &point, prec + 1);
        emit_exp(s, sp, sign, d, n, point, prec, prec > 0 || sp->hash, upper ? 'E' : 'e');
        return;
    default:
        break;
    }
    /* %g: P significant digits, fixed notation when -4 <= X < P. */
    long long p = prec == 0 ? 1 : prec;
    round_digits(d, &n, &point, p);
    long long x = n == 0 ? 0 : point - 1;
    if (n == 0) {
        point = 0;
    }
    if (x < p && x >= -4) {
        long long frac_digits = p - 1 - x;
        if (!sp->hash) {
            long long significant = (long long)n - point;
            if (significant < 0) {
                significant = 0;
            }
            if (frac_digits > significant) {
                frac_digits = significant;
            }
        }
        emit_fixed(s, sp, sign, d, n, point, frac_digits, frac_digits > 0 || sp->hash);
    } else {
        long long frac_digits = p - 1;
        if (!sp->hash && frac_digits > n - 1) {
            frac_digits = n > 0 ? n - 1 : 0;
        }
        emit_exp(s, sp, sign, d, n, point, frac_digits, frac_digits > 0 || sp->hash,
                 upper ? 'E' : 'e');
    }
}

/* Length modifiers. */
enum length { LEN_NONE, LEN_HH, LEN_H, LEN_L, LEN_LL, LEN_Z, LEN_J, LEN_T, LEN_BIG_L };

/* Reads a decimal number at *p, saturating at INT_MAX. */
static int read_number(const char **p)
{
    long long v = 0;
    while (**p >= '0' && **p <= '9') {
        v = v * 10 + (**p - '0');
        if (v > INT_MAX) {
            v = INT_MAX;
        }
        (*p)++;
    }
    return (int)v;
}

static void format(struct sink *s, const char *fmt, va_list ap)
{
    while (*fmt != '\0') {
        if (*fmt != '%') {
            const char *start = fmt;
            while (*fmt != '\0' && *fmt != '%') {
                fmt++;
            }
            out(s, start, (size_t)(fmt - start));
            continue;
        }
        const char *start = fmt++;
        struct spec sp = {0, 0, 0, 0, 0, 0, -1, 0};
        for (;; fmt++) {
            if (*fmt == '-') {
                sp.minus = 1;
            } else if (*fmt == '+') {
                sp.plus = 1;
            } else if (*fmt == ' ') {
                sp.space = 1;
            } else if (*fmt == '#') {
                sp.hash = 1;
            } else if (*fmt == '0') {
                sp.zero = 1;
            } else if (*fmt == '\'') {
                /* Thousands grouping: the "C" locale has none. */
            } else {
                break;
            }
        }
        if (*fmt == '*') {
            fmt++;
            int w = va_arg(ap, int);
            if (w < 0) {
                sp.minus = 1;
                w = w == INT_MIN ? INT_MAX : -w;
            }
            sp.width = w;
        } else {
            sp.width = read_number(&fmt);
        }
        if (*fmt == '.') {
            fmt++;
            if (*fmt == '*') {
                fmt++;
                int pr = va_arg(ap, int);
                sp.prec = pr < 0 ? -1 : pr;
            } else {
                sp.prec = read_number(&fmt);
            }
        }
        enum length len = LEN_NONE;
        switch (*fmt) {
        case 'h':
            fmt++;
            len = LEN_H;
            if (*fmt == 'h') {
                fmt++;
                len = LEN_HH;
            }
            break;
        case 'l':
            fmt++;
            len = LEN_L;
            if (*fmt == 'l') {
                fmt++;
                len = LEN_LL;
            }
            break;
        case 'q':
            fmt++;
            len = LEN_LL;
            break;
        case 'z':
            fmt++;
            len = LEN_Z;
            break;
        case 'j':
            fmt++;
            len = LEN_J;
            break;
        case 't':
            fmt++;
            len = LEN_T;
            break;
        case 'L':
            fmt++;
            len = LEN_BIG_L;
            break;
        default:
            break;
        }
        sp.conv = *fmt;
        if (sp.conv == '\0') {
            out(s, start, (size_t)(fmt - start));
            break;
        }
        fmt++;
        switch (sp.conv) {
        case 'd':
        case 'i': {
            intmax_t v;
            switch (len) {
            case LEN_HH:
                v = (signed char)va_arg(ap, int);
                break;
            case LEN_H:
                v = (short)va_arg(ap, int);
                break;
            case LEN_L:
                v = va_arg(ap, long);
                break;
            case LEN_LL:
            case LEN_BIG_L:
                v = va_arg(ap, long long);
                break;
            case LEN_Z:
                v = (intmax_t)(ptrdiff_t)va_arg(ap, size_t);
                break;
            case LEN_J:
                v = va_arg(ap, intmax_t);
                break;
            case LEN_T:
                v = va_arg(ap, ptrdiff_t);
                break;
            default:
                v = va_arg(ap, int);
                break;
            }
            uintmax_t mag = v < 0 ? -(uintmax_t)v : (uintmax_t)v;
            fmt_int(s, &sp, mag, v < 0);
            break;
        }
        case 'u':
        case 'o':
        case 'x':
        case 'X': {
            uintmax_t v;
            switch (len) {
            case LEN_HH:
                v = (unsigned char)va_arg(ap, unsigned);
                break;
            case LEN_H:
                v = (unsigned short)va_arg(ap, unsigned);
                break;
            case LEN_L:
                v = va_arg(ap, unsigned long);
                break;
            case LEN_LL:
            case LEN_BIG_L:
                v = va_arg(ap, unsigned long long);
                break;
            case LEN_Z:
                v = va_arg(ap, size_t);
                break;
            case LEN_J:
                v = va_arg(ap, uintmax_t);
                break;
            case LEN_T:
                v = (uintmax_t)(size_t)va_arg(ap, ptrdiff_t);
                break;
            default:
                v = va_arg(ap, unsigned);
                break;
            }
            fmt_int(s, &sp, v, 0);
            break;
        }
        case 'p': {
            void *ptr = va_arg(ap, void *);
            if (ptr == NULL) {
                struct spec plain = sp;
                plain.zero = 0;
                plain.prec = -1;
                out_field(s, &plain, "", 0, 0, "(nil)", 5);
            } else {
                fmt_int(s, &sp, (uintptr_t)ptr, 0);
            }
            break;
        }
        case 'c': {
            char c = (char)va_arg(ap, int);
            struct spec plain = sp;
            plain.zero = 0;
            out_field(s, &plain, "", 0, 0, &c, 1);
            break;
        }
        case 's': {
            if (len == LEN_L) {
                out(s, start, (size_t)(fmt - start));
                break;
            }
            const char *str = va_arg(ap, const char *);
            if (str == NULL) {
                str = sp.prec < 0 || sp.prec >= 6 ? "(null)" : "";
            }
            size_t slen = sp.prec < 0 ? strlen(str) : strnlen(str, (size_t)sp.prec);
            struct spec plain = sp;
            plain.zero = 0;
            out_field(s, &plain, "", 0, 0, str, slen);
            break;
        }
        case 'f':
        case 'F':
        case 'e':
        case 'E':
        case 'g':
        case 'G':
        case 'a':
        case 'A': {
            double v = len == LEN_BIG_L ? (double)va_arg(ap, long double) : va_arg(ap, double);
            fmt_float(s, &sp, v);
            break;
        }
        case '%':
            out_char(s, '%');
            break;
        default:
            out(s, start, (size_t)(fmt - start));
            break;
        }
    }
}

/* The return value of the printf family: the count, or -1 with errno
 * EOVERFLOW when it does not fit an int. */
static int result(const struct sink *s)
{
    if (s->count > INT_MAX) {
        errno = EOVERFLOW;
        return -1;
    }
    return (int)s->count;
}

int vsnprintf(char *restrict buf, size_t n, const char *restrict fmt, va_list ap)
{
    struct sink s;
    s.buf = buf;
    s.cap = n;
    s.fd = 0;
    s.count = 0;
    s.held = 0;
    format(&s, fmt, ap);
    if (n != 0) {
        buf[s.count < n - 1 ? s.count : n - 1] = '\0';
    }
    return result(&s);
}

int snprintf(char *restrict buf, size_t n, const char *restrict fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = vsnprintf(buf, n, fmt, ap);
    va_end(ap);
    return r;
}

int vsprintf(char *restrict buf, const char *restrict fmt, va_list ap)
{
    return vsnprintf(buf, (size_t)INT_MAX + 1, fmt, ap);
}

int sprintf(char *restrict buf, const char *restrict fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = vsprintf(buf, fmt, ap);
    va_end(ap);
    return r;
}

/* The descriptor behind a stream: 1 or 2. */
int __crt_stream_fd(FILE *stream);

int vfprintf(FILE *restrict stream, const char *restrict fmt, va_list ap)
{
    struct sink s;
    s.buf = NULL;
    s.cap = 0;
    s.fd = __crt_stream_fd(stream);
    s.count = 0;
    s.held = 0;
    format(&s, fmt, ap);
    sink_flush(&s);
    return result(&s);
}

int fprintf(FILE *restrict stream, const char *restrict fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = vfprintf(stream, fmt, ap);
    va_end(ap);
    return r;
}

int vprintf(const char *restrict fmt, va_list ap)
{
    return vfprintf(stdout, fmt, ap);
}

int printf(const char *restrict fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = vfprintf(stdout, fmt, ap);
    va_end(ap);
    return r;
}
