/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* <memory.h>: the old BSD header of the memory functions, which it
 * declares through <string.h> (memcpy, memset, memcmp, memmove, memchr). */
#ifndef CRT_MEMORY_H
#define CRT_MEMORY_H
#include <string.h>
#endif
