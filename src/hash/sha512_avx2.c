/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** SHA-512 compress built with BMI2 (rorx: rotations without flag or copy), selected at run
** time by sha512.c; the same source as the portable one (sha512_body.h).
*/
#include "hash/md.h"

#define SHA512_COMPRESS_NAME merkle__sha512_compress_bmi2
#include "hash/sha512_body.h"
