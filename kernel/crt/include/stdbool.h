/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* stdbool.h: boolean type and values (C11 7.18). */
#ifndef CRT_STDBOOL_H
#define CRT_STDBOOL_H

#ifndef __cplusplus
#define bool _Bool
#define true 1
#define false 0
#endif
#define __bool_true_false_are_defined 1

#endif
