/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* ctype.h for the "C" locale: ASCII classes; EOF and bytes 128..255 are
 * in none. */
#include <ctype.h>

int isdigit(int c)
{
    return c >= '0' && c <= '9';
}

int isupper(int c)
{
    return c >= 'A' && c <= 'Z';
}

int islower(int c)
{
    return c >= 'a' && c <= 'z';
}

int isalpha(int c)
{
    return isupper(c) || islower(c);
}

int isalnum(int c)
{
    return isalpha(c) || isdigit(c);
}

int isxdigit(int c)
{
    return isdigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int isblank(int c)
{
    return c == ' ' || c == '\t';
}

int isspace(int c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

int iscntrl(int c)
{
    return (c >= 0 && c < 0x20) || c == 0x7f;
}

int isprint(int c)
{
    return c >= 0x20 && c < 0x7f;
}

int isgraph(int c)
{
    return c > 0x20 && c < 0x7f;
}

int ispunct(int c)
{
    return isgraph(c) && !isalnum(c);
}

int tolower(int c)
{
    return isupper(c) ? c - 'A' + 'a' : c;
}

int toupper(int c)
{
    return islower(c) ? c - 'a' + 'A' : c;
}
