/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** consumer.cpp: a C++ program that uses the installed libmerkle, built by the install test
** (tests/cli/test_install.py) through CMake find_package(merkle) and through pkg-config:
**     c++ -std=c++17 consumer.cpp $(pkg-config --cflags --libs merkle)
** Prints the RFC 6962 root of "abc" cut into 1-byte leaves (as
** `printf abc | merkle root --leaf-size 1` does) and the BLAKE2b-256 of "abc"; exits 1 if the
** streaming and one-shot BLAKE2b disagree or an error is not reported.
*/
#include <merkle/merkle.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

// The library is C: a C++ consumer must see the same layout (the header test checks sizes).
static_assert(alignof(merkle_blake2b) == 64, "merkle_blake2b is 64-byte aligned");

static std::string hex(const std::vector<uint8_t> &bytes)
{
    std::string out(2 * bytes.size() + 1, '\0');
    merkle_hex_encode(&out[0], bytes.data(), bytes.size());
    out.resize(2 * bytes.size());
    return out;
}

int main()
{
    const std::string msg = "abc";
    std::vector<uint8_t> root(MERKLE_HASH_LEN);
    merkle_status s = merkle_tree_root_bytes(root.data(), MERKLE_PROFILE_RFC6962, MERKLE_HASH_SHA256,
                                        1, msg.data(), msg.size());
    if (s != MERKLE_OK) {
        std::fprintf(stderr, "consumer: %s\n", merkle_strerror(s));
        return 1;
    }
    if (merkle_tree_root_bytes(root.data(), MERKLE_PROFILE_RFC6962, MERKLE_HASH_SHA256, 0,
                          msg.data(), msg.size()) != MERKLE_ERR_ARG) {
        std::fprintf(stderr, "consumer: leaf size 0 was not refused\n");
        return 1;
    }
    merkle_tree_root_bytes(root.data(), MERKLE_PROFILE_RFC6962, MERKLE_HASH_SHA256, 1, msg.data(),
                      msg.size());

    // A caller-owned, over-aligned C struct in a C++ container.
    std::vector<merkle_blake2b> states(3);
    std::vector<uint8_t> streamed(MERKLE_BLAKE2B_256_LEN), oneshot(MERKLE_BLAKE2B_256_LEN);
    merkle_blake2b &ctx = states[1];
    if (merkle_blake2b_init(&ctx, MERKLE_BLAKE2B_256_LEN) != MERKLE_OK) return 1;
    for (char c : msg) merkle_blake2b_update(&ctx, &c, 1);
    merkle_blake2b_final(&ctx, streamed.data());
    merkle_blake2b_256(oneshot.data(), msg.data(), msg.size());
    if (streamed != oneshot) {
        std::fprintf(stderr, "consumer: streaming BLAKE2b-256 disagrees with one-shot\n");
        return 1;
    }
    std::printf("%s  -\n", hex(root).c_str());
    std::printf("blake2b-256 %s\n", hex(oneshot).c_str());
    std::fprintf(stderr, "consumer: libmerkle %s (headers %s)\n", merkle_version(),
                 MERKLE_VERSION_STRING);
    return std::strcmp(merkle_version(), MERKLE_VERSION_STRING) == 0 ? 0 : 1;
}
