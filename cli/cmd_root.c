/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle root [--profile rfc6962|sia] [--hash sha256|blake2b-256] [--leaf-size N] [FILE...]
** merkle root --leaves [--profile ...] [--hash ...] [FILE...]
** merkle root --profile bitcoin|ssz|openzeppelin|bittorrent-v2 ... (cli/shaped.c)
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
    printf(
        "Usage: merkle root [OPTIONS] [FILE...]\n"
        "Print the Merkle root of each FILE (or standard input) as '<hex>  <name>'.\n\n"
        "  --profile P      rfc6962 (default) or sia (Sia crypto.MerkleRoot: BLAKE2b-256,\n"
        "                   64-byte segments, empty input -> 32 zero bytes); bitcoin, ssz,\n"
        "                   openzeppelin (each with --leaves, one 32-byte hash per line) or\n"
        "                   bittorrent-v2 (BEP 52 pieces root of each FILE)\n"
        "  --hash H         sha256 (rfc6962 default), blake2b-256 (sia default), keccak256\n"
        "  --leaf-size N    cut the byte stream into N-byte leaves (the last may be short);\n"
        "                   default 4096 for rfc6962, 64 for sia; K/M/G suffixes allowed\n"
        "  --leaves         each input line is one leaf in hex (an empty line is an empty leaf)\n"
        "  --internal-order bitcoin: txids and root in internal byte order (default: display\n"
        "                   order, byte-reversed, as block explorers show them)\n"
        "  --strict         bitcoin: exit 1 when the list is mutated (CVE-2012-2459)\n"
        "  --limit N        ssz: pad to the next power of two of N chunks (a list limit)\n"
        "  --mix-in-length  ssz: mix the number of chunks into the root (SSZ lists)\n"
        "  --values TYPES   openzeppelin: each line is a row of comma-separated values of\n"
        "                   the ABI types TYPES (e.g. address,uint256): StandardMerkleTree\n"
        "  --dump FILE      openzeppelin: also write the tree's dump() JSON to FILE (a new file)\n"
        "  --load           openzeppelin: each FILE is a dump() JSON (StandardMerkleTree or\n"
        "                   SimpleMerkleTree), checked node by node\n"
        "  --piece-layer SIZE  bittorrent-v2: print the piece layer for pieces of SIZE bytes\n"
        "                   (one '<hex>  <name>' line per piece) instead of the pieces root\n"
        "  -j, --threads N  hash with N threads (0 = all cores; default all cores)\n"
        "  -q, --quiet      no progress line on a terminal\n"
        "      --mpi        run under mpirun: ranks share the work (built with MERKLE_MPI)\n"
        "  -h, --help       this help\n\n"
        "With no FILE, or when FILE is -, read standard input.\n"
        "Exit status: 0 success, 1 if any input could not be read or parsed, 2 usage error.\n");
}

int root_parse_common(int argc, char **argv, root_opts *o, const char *sub, int *first_arg)
{
    enum {
        OPT_PROFILE = 256,
        OPT_HASH,
        OPT_LEAF_SIZE,
        OPT_LEAVES,
        OPT_MPI,
        OPT_INTERNAL,
        OPT_STRICT,
        OPT_LIMIT,
        OPT_MIX_IN,
        OPT_VALUES,
        OPT_DUMP,
        OPT_LOAD,
        OPT_PIECE_LAYER
    };
    static const struct option longopts[] = {
        { "profile", required_argument, NULL, OPT_PROFILE },
        { "hash", required_argument, NULL, OPT_HASH },
        { "leaf-size", required_argument, NULL, OPT_LEAF_SIZE },
        { "leaves", no_argument, NULL, OPT_LEAVES },
        { "threads", required_argument, NULL, 'j' },
        { "mpi", no_argument, NULL, OPT_MPI },
        { "internal-order", no_argument, NULL, OPT_INTERNAL },
        { "strict", no_argument, NULL, OPT_STRICT },
        { "limit", required_argument, NULL, OPT_LIMIT },
        { "mix-in-length", no_argument, NULL, OPT_MIX_IN },
        { "values", required_argument, NULL, OPT_VALUES },
        { "dump", required_argument, NULL, OPT_DUMP },
        { "load", no_argument, NULL, OPT_LOAD },
        { "piece-layer", required_argument, NULL, OPT_PIECE_LAYER },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
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
                return cli_usage_error(sub,
                                       "unknown profile '%s' (rfc6962, sia, bitcoin, ssz, "
                                       "openzeppelin or bittorrent-v2)",
                                       optarg);
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
        case OPT_INTERNAL: o->internal_order = 1; break;
        case OPT_STRICT: o->strict = 1; break;
        case OPT_LIMIT:
            if (cli_parse_u64(optarg, &o->limit) != 0 || o->limit == 0 ||
                o->limit > ((uint64_t)1 << 62))
                return cli_usage_error(sub, "--limit needs a chunk count 1..2^62, got '%s'",
                                       optarg);
            break;
        case OPT_MIX_IN: o->mix_in = 1; break;
        case OPT_VALUES: o->values = optarg; break;
        case OPT_DUMP: o->dump = optarg; break;
        case OPT_LOAD: o->load = 1; break;
        case OPT_PIECE_LAYER:
            if (cli_parse_size(optarg, &o->piece_layer) != 0 || o->piece_layer < 16384 ||
                (o->piece_layer & (o->piece_layer - 1)) || o->piece_layer > ((uint64_t)1 << 40))
                return cli_usage_error(
                    sub, "--piece-layer needs a power of two of at least 16K, got '%s'", optarg);
            break;
        case 'j':
            if (cli_parse_jobs(sub, optarg, &o->threads) != 0) return CLI_USAGE;
            o->threads_given = o->threads > 0;
            break;
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
    merkle_profile_defaults(&def_hash, &def_leaf, o->profile);
    o->hash = def_hash;
    if (have_hash && merkle_hash_alg_from_name(&o->hash, hash_name) != MERKLE_OK)
        return cli_usage_error(sub, "unknown hash '%s' (sha256, blake2b-256 or keccak256)",
                               hash_name);
    o->have_hash = have_hash;
    if (shaped_check_opts(o, sub) != 0) return CLI_USAGE;
    if (!root_profile_classic(o->profile) && leaf_size)
        return cli_usage_error(sub, "--leaf-size does not apply to the %s profile",
                               merkle_profile_name(o->profile));
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
    if (o.mpi && !root_profile_classic(o.profile))
        return cli_usage_error("root", "--mpi serves the rfc6962 and sia profiles only");
    if (o.mpi) return root_run_mpi(&o, names, n);
    int status = CLI_OK;
    for (int i = 0; i < n; i++) {
        uint8_t root[MERKLE_HASH_LEN];
        root_result res;
        if (o.piece_layer) {
            if (shaped_piece_layer(&o, names[i]) != 0) status = CLI_FAIL;
            continue;
        }
        int r = root_profile_classic(o.profile) ? root_compute(&o, names[i], root, &res)
                                                : shaped_root(&o, names[i], root, &res);
        if (r != 0) {
            status = CLI_FAIL;
            continue;
        }
        if ((res.shape_flags & MERKLE_SHAPE_MUTATED) && o.strict) status = CLI_FAIL;
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
