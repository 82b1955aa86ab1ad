/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle root [--profile rfc6962|sia] [--hash sha256|blake2b-256] [--leaf-size N] [FILE...]
** merkle root --leaves [--profile ...] [--hash ...] [FILE...]
*/
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "rootio.h"

static void help(void)
{
    printf("Usage: merkle root [OPTIONS] [FILE...]\n"
           "Print the Merkle root of each FILE (or standard input) as '<hex>  <name>'.\n\n"
           "  --profile P      rfc6962 (default) or sia (Sia crypto.MerkleRoot: BLAKE2b-256,\n"
           "                   64-byte segments, empty input -> 32 zero bytes)\n"
           "  --hash H         sha256 (rfc6962 default) or blake2b-256 (sia default)\n"
           "  --leaf-size N    cut the byte stream into N-byte leaves (the last may be short);\n"
           "                   default 4096 for rfc6962, 64 for sia; K/M/G suffixes allowed\n"
           "  --leaves         each input line is one leaf in hex (an empty line is an empty leaf)\n"
           "  -j, --threads N  hash with N threads (0 = all cores; default all cores)\n"
           "  -q, --quiet      no progress line on a terminal\n"
           "      --mpi        run under mpirun: ranks share the work (built with MERKLE_MPI)\n"
           "  -h, --help       this help\n\n"
           "With no FILE, or when FILE is -, read standard input.\n"
           "Exit status: 0 success, 1 if any input could not be read or parsed, 2 usage error.\n");
}

int root_parse_common(int argc, char **argv, root_opts *o, const char *sub, int *first_arg)
{
    enum { OPT_PROFILE = 256, OPT_HASH, OPT_LEAF_SIZE, OPT_LEAVES, OPT_MPI };
    static const struct option longopts[] = {
        {"profile", required_argument, NULL, OPT_PROFILE},
        {"hash", required_argument, NULL, OPT_HASH},
        {"leaf-size", required_argument, NULL, OPT_LEAF_SIZE},
        {"leaves", no_argument, NULL, OPT_LEAVES},
        {"threads", required_argument, NULL, 'j'},
        {"mpi", no_argument, NULL, OPT_MPI},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    o->profile = MERKLE_PROFILE_RFC6962;
    int have_hash = 0;
    const char *hash_name = NULL;
    uint64_t leaf_size = 0;
    o->threads = 0;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "j:qh", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_PROFILE:
            if (merkle_profile_from_name(&o->profile, optarg) != MERKLE_OK)
                return cli_usage_error(sub, "unknown profile '%s' (rfc6962 or sia)", optarg);
            break;
        case OPT_HASH:
            hash_name = optarg;
            have_hash = 1;
            break;
        case OPT_LEAF_SIZE:
            if (cli_parse_size(optarg, &leaf_size) != 0 || leaf_size > SIZE_MAX / 2)
                return cli_usage_error(sub, "--leaf-size must be a positive integer, got '%s'", optarg);
            break;
        case OPT_LEAVES: o->leaves = 1; break;
        case 'j': {
            uint64_t j;
            if (cli_parse_u64(optarg, &j) != 0 || j > 1024)
                return cli_usage_error(sub, "-j needs a thread count 0..1024, got '%s'", optarg);
            o->threads = (unsigned)j;
            o->threads_given = j > 0;
            break;
        }
        case OPT_MPI: o->mpi = 1; break;
        case 'q': o->quiet = 1; break;
        case 'h': help(); return -1;
        case '?':
        default:
            if (optopt && optopt < 256)
                return cli_usage_error(sub, "invalid option -- '%c'", optopt);
            return cli_usage_error(sub, "unrecognized option '%s'", argv[optind - 1]);
        }
    }
    merkle_hash_alg def_hash;
    size_t def_leaf;
    merkle_profile_defaults(o->profile, &def_hash, &def_leaf);
    o->hash = def_hash;
    if (have_hash && merkle_hash_alg_from_name(&o->hash, hash_name) != MERKLE_OK)
        return cli_usage_error(sub, "unknown hash '%s' (sha256 or blake2b-256)", hash_name);
    o->leaf_size = leaf_size ? (size_t)leaf_size : def_leaf;
    if (o->leaves && leaf_size)
        return cli_usage_error(sub, "--leaves and --leaf-size cannot be used together");
    if (o->threads == 0) o->threads = cli_num_cpus();
    *first_arg = optind;
    return 0;
}

int cmd_root(int argc, char **argv)
{
    root_opts o;
    int first;
    int rc = root_parse_common(argc, argv, &o, "root", &first);
    if (rc == -1) return CLI_OK; /* --help */
    if (rc != 0) return rc;
    static const char *stdin_only[] = {"-"};
    const char **names = first < argc ? (const char **)argv + first : stdin_only;
    int n = first < argc ? argc - first : 1;
    if (o.mpi) return root_run_mpi(&o, names, n);
    int status = CLI_OK;
    for (int i = 0; i < n; i++) {
        uint8_t root[MERKLE_HASH_LEN];
        root_result res;
        if (root_compute(&o, names[i], root, &res) != 0) {
            status = CLI_FAIL;
            continue;
        }
        char hex[2 * MERKLE_HASH_LEN + 1];
        merkle_hex_encode(hex, root, MERKLE_HASH_LEN);
        cli_print_digest_line(stdout, hex, names[i], 0, 0);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_error("write error: %s", strerror(errno));
        return CLI_FAIL;
    }
    return status;
}
