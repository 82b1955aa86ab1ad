/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Corpus replay without libFuzzer: runs LLVMFuzzerTestOneInput on every file of the
** directories (or files) given, so ctest guards the corpora under any compiler.
** Prints the closing line "N passed, 0 failed"; a crash fails the test.
*/
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return 0;
    }
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(sz > 0 ? (size_t)sz : 1);
    size_t n = fread(buf, 1, (size_t)(sz > 0 ? sz : 0), f);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 1;
}

int main(int argc, char **argv)
{
    size_t count = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "%s: no such corpus\n", argv[i]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            count += (size_t)run_file(argv[i]);
            continue;
        }
        DIR *d = opendir(argv[i]);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.') continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            count += (size_t)run_file(path);
        }
        if (d) closedir(d);
    }
    /* The empty input always runs too. */
    LLVMFuzzerTestOneInput((const uint8_t *)"", 0);
    printf("%zu passed, 0 failed\n", count + 1);
    return 0;
}
