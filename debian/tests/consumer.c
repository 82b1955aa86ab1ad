/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** A program outside the source tree that uses the installed libmerkle through pkg-config:
**     cc consumer.c $(pkg-config --cflags --libs merkle)
** Prints the root of "abc" cut into 1-byte leaves (the same as
** `printf abc | merkle root --leaf-size 1`) and the library version.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <merkle/merkle.h>

int main(void)
{
    merkle_tree *t = malloc(sizeof *t); /* large: not on a small stack */
    const char *msg = "abc";
    uint8_t root[MERKLE_HASH_LEN], again[MERKLE_HASH_LEN];
    char hex[2 * MERKLE_HASH_LEN + 1];
    if (!t) return 1;
    merkle_status s = merkle_tree_init(t, MERKLE_PROFILE_RFC6962, MERKLE_HASH_SHA256, 1);
    if (s == MERKLE_OK) s = merkle_tree_write(t, msg, strlen(msg));
    if (s == MERKLE_OK) s = merkle_tree_root(root, NULL, t);
    free(t);
    if (s != MERKLE_OK) {
        fprintf(stderr, "consumer: %s\n", merkle_strerror(s));
        return 1;
    }
    /* The one-shot call agrees with the streaming builder. */
    s = merkle_tree_root_bytes(again, MERKLE_PROFILE_RFC6962, MERKLE_HASH_SHA256, 1, msg,
                               strlen(msg));
    if (s != MERKLE_OK || !merkle_ct_equal(root, again, sizeof root)) {
        fprintf(stderr, "consumer: merkle_tree_root_bytes disagrees\n");
        return 1;
    }
    /* Errors come back as status codes with a message. */
    if (merkle_tree_root_bytes(again, MERKLE_PROFILE_RFC6962, MERKLE_HASH_SHA256, 0, msg, 3) !=
        MERKLE_ERR_ARG) {
        fprintf(stderr, "consumer: leaf size 0 was not refused\n");
        return 1;
    }
    merkle_hex_encode(hex, root, sizeof root);
    printf("%s  -\n", hex);
    fprintf(stderr, "consumer: libmerkle %s (headers %s)\n", merkle_version(),
            MERKLE_VERSION_STRING);
    return strcmp(merkle_version(), MERKLE_VERSION_STRING) == 0 ? 0 : 1;
}
