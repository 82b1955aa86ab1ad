/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Helpers of the manifest subcommands (sum, check, audit, dirroot). */
#ifndef MERKLE_MANIFEST_CLI_H
#define MERKLE_MANIFEST_CLI_H

#include <stdio.h>

/* Write s quoted as coreutils' quotef() does (C locale). */
void mcli_quotef(FILE *f, const char *s);

#endif
