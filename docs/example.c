/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** example.c: a complete program using libmerkle.
**
**   cc example.c $(pkg-config --cflags --libs merkle) -o example
**   ./example FILE        # RFC 6962 root of FILE with 4096-byte leaves, and of a leaf list
**
** It shows what most users need: a streaming root of a file in constant memory, the root
** of a list of byte strings, and error handling with merkle_status.
*/
#include <merkle/merkle.h>
#include <stdio.h>
#include <string.h>

static int file_root(const char *path, uint8_t root[MERKLE_HASH_LEN])
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    static merkle_tree t; /* caller-owned (8,768 bytes on x86-64); no heap allocation below */
    merkle_status s = merkle_tree_init(&t, MERKLE_PROFILE_RFC6962, MERKLE_HASH_SHA256, 4096);
    static uint8_t buf[1 << 16];
    size_t n;
    while (s == MERKLE_OK && (n = fread(buf, 1, sizeof buf, f)) > 0)
        s = merkle_tree_write(&t, buf, n); /* pieces of any size; leaves may span them */
    if (s == MERKLE_OK && ferror(f)) s = MERKLE_ERR_IO;
    fclose(f);
    if (s == MERKLE_OK) s = merkle_tree_root(root, NULL, &t);
    if (s != MERKLE_OK) {
        fprintf(stderr, "%s: %s\n", path, merkle_strerror(s));
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FILE\n", argv[0]);
        return 2;
    }
    uint8_t root[MERKLE_HASH_LEN];
    char hex[2 * MERKLE_HASH_LEN + 1];
    if (file_root(argv[1], root) != 0) return 1;
    merkle_hex_encode(hex, root, sizeof root);
    printf("%s  %s\n", hex, argv[1]);

    /* CometBFT HashFromByteSlices = RFC 6962 MTH of three byte strings. */
    const uint8_t *leaves[] = { (const uint8_t *)"0", (const uint8_t *)"1", (const uint8_t *)"2" };
    const size_t lens[] = { 1, 1, 1 };
    merkle_status s =
        merkle_tree_root_list(root, MERKLE_PROFILE_RFC6962, MERKLE_HASH_SHA256, leaves, lens, 3);
    if (s != MERKLE_OK) {
        fprintf(stderr, "root: %s\n", merkle_strerror(s));
        return 1;
    }
    merkle_hex_encode(hex, root, sizeof root);
    printf("%s  [\"0\",\"1\",\"2\"]\n", hex);

    /* Errors are values: a zero leaf size is refused at once. */
    merkle_tree t2;
    s = merkle_tree_init(&t2, MERKLE_PROFILE_SIA, MERKLE_HASH_BLAKE2B_256, 0);
    printf("leaf size 0: %s\n", merkle_strerror(s));
    printf("libmerkle %s\n", merkle_version());
    return s == MERKLE_ERR_ARG ? 0 : 1;
}
