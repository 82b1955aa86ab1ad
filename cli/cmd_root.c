/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle root [--profile rfc6962|sia] [--hash sha256|blake2b-256] [--leaf-size N] [FILE...]
** merkle root --leaves [--profile ...] [--hash ...] [FILE...]
** merkle root --profile bitcoin|ssz|openzeppelin|bittorrent-v2 ... (cli/shaped.c)
*/
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "rootio.h"

/* ------------------------------------------------------------------ options */

/* The input options of root, proof and consistency. */
const cli_opt root_input_opts[] = {
    { OPT_PROFILE, "profile", "P",
      "rfc6962 sia bitcoin ssz openzeppelin bittorrent-v2 fsverity dm-verity",
      "rfc6962 (default) or sia (Sia crypto.MerkleRoot: BLAKE2b-256, 64-byte segments, an "
      "empty input gives 32 zero bytes); bitcoin, ssz, openzeppelin (each with --leaves, one "
      "32-byte hash per line), bittorrent-v2 (BEP 52 pieces root of each FILE); merkle root "
      "only: fsverity (the file digest that fsverity digest prints) or dm-verity (the root hash "
      "that veritysetup format prints)",
      "See *TREE PROFILES AND HASHES*." },
    { OPT_HASH, "hash", "H", "sha256 blake2b-256 keccak256",
      "sha256 (the rfc6962 default), blake2b-256 (the sia default) or keccak256", NULL },
    { OPT_LEAF_SIZE, "leaf-size", "N", NULL,
      "cut the byte stream into N-byte leaves, the last may be short (default 4096 for "
      "rfc6962, 64 for sia; the suffixes K, M and G multiply by 1024, 1024^2 and 1024^3)",
      "*--leaf-size 0* is refused at once (exit 2)." },
    { OPT_LEAVES, "leaves", NULL, NULL,
      "each input line is one leaf in hex (an empty line is an empty leaf)",
      "White space around the hex and CRLF line ends are accepted. Bad hex is reported as "
      "\"merkle: _FILE_:_LINE_: ...\". Cannot be combined with *--leaf-size*." },
    { OPT_LEAF_HASHES, "leaf-hashes", NULL, NULL,
      "each input line is a 32-byte leaf hash in hex, already H(0x00 || leaf) (what a "
      "transparency log stores); with the other profiles the same as --leaves",
      "rfc6962 and sia: the lines are the tree's level 0, so no leaf is hashed again; a line "
      "that is not 32 bytes is an error naming it. Proofs then carry the leaf hash only." },
    { OPT_0X, "0x", NULL, NULL,
      "print hashes with a 0x prefix (roots, and every hash of a JSON proof), as Ethereum and "
      "Chia tools write them",
      "Input takes an optional 0x everywhere, with or without this option. Not with "
      "*--binary* or *--format cometbft* (base64)." },
    { 'j', "threads", "N", NULL, "hash with N threads (0 = all cores, the default)", NULL },
    { 'q', "quiet", NULL, NULL, "no progress line (one is shown on a terminal for large inputs)",
      NULL },
    CLI_OPT_HELP_ROW,
    CLI_OPT_END_ROW,
};

/* Options of the profiles other than rfc6962 and sia (cli/shaped.c). */
const cli_opt root_shape_opts[] = {
    { 0, NULL, NULL, NULL, "Profile options (each only with its profile):", NULL },
    { OPT_INTERNAL_ORDER, "internal-order", NULL, NULL,
      "bitcoin: txids and root in internal byte order (default: display order, byte-reversed, "
      "as block explorers show them)",
      NULL },
    { OPT_STRICT, "strict", NULL, NULL, "bitcoin: exit 1 when the list is mutated (CVE-2012-2459)",
      NULL },
    { OPT_BLOCK, "block", NULL, NULL,
      "bitcoin: each FILE is a raw block (binary, or hex text): the txids of its transactions "
      "are the leaves",
      "The block is parsed as Bitcoin Core does (witnesses, minimal sizes, nothing after the "
      "last transaction); its witness commitment is checked and its header's merkle root must "
      "be the root of its txids, else exit 1 with a message. At most 64 MiB per block." },
    { OPT_LIMIT, "limit", "N", NULL,
      "ssz: pad to the next power of two of N chunks (a list limit; more chunks: exit 1)", NULL },
    { OPT_MIX_IN_LENGTH, "mix-in-length", NULL, NULL,
      "ssz: mix the number of chunks into the root (SSZ lists)", NULL },
    { OPT_VALUES, "values", "TYPES", NULL,
      "openzeppelin: each line is a row of comma-separated values of the ABI types TYPES "
      "(e.g. address,uint256): StandardMerkleTree",
      "A value in double quotes may contain commas; see *TREE PROFILES AND HASHES*." },
    { OPT_LOAD, "load", NULL, NULL,
      "openzeppelin: each FILE is a dump() JSON (StandardMerkleTree or SimpleMerkleTree), "
      "checked node by node before it is used",
      NULL },
    CLI_OPT_END_ROW,
};

/* Outputs of the shaped profiles that only `merkle root` writes. */
static const cli_opt root_shape_out_opts[] = {
    { OPT_DUMP, "dump", "FILE", CLI_VALUES_FILE,
      "openzeppelin: also write the tree's dump() JSON to FILE, which must not exist",
      "It is written as JSON.stringify(tree.dump(), null, 2) writes it." },
    { OPT_RENDER, "render", NULL, NULL,
      "openzeppelin: print each tree as render() of @openzeppelin/merkle-tree prints it (one "
      "'I) 0x<node>' line per node of the tree array, drawn as a tree) instead of the root",
      "The text is byte for byte what tree.render() returns, followed by a newline." },
    { OPT_PIECE_LAYER, "piece-layer", "SIZE", NULL,
      "bittorrent-v2: print the piece layer for pieces of SIZE bytes (a power of two, at least "
      "16K), one '<hex>  <name>' line per piece, instead of the pieces root",
      "A file not larger than one piece has none." },
    { OPT_BLOCK_SIZE, "block-size", "N", NULL,
      "fsverity, dm-verity: the block size (a power of two; default 4096)",
      "fsverity takes 1024 to 65536, dm-verity 512 to 65536 (its data and hash blocks)." },
    { OPT_SALT, "salt", "HEX", NULL,
      "fsverity, dm-verity: the salt prepended to every hashed block (default: none)",
      "At most 32 bytes for fsverity, 256 for dm-verity. veritysetup picks a random salt "
      "unless given one: pass the same *--salt* to both." },
    { OPT_HASH_TREE, "hash-tree", "OUT", CLI_VALUES_FILE,
      "dm-verity: also write the hash device (superblock and hash blocks) to OUT, which must "
      "not exist; one FILE only",
      "*veritysetup verify* _FILE_ _OUT_ _ROOT_ accepts it. dm-verity covers whole blocks: "
      "a partial last block is not hashed (as *veritysetup format* does) and a warning says "
      "so." },
    CLI_OPT_END_ROW,
};

static const cli_opt root_mpi_opts[] = {
    { OPT_MPI, "mpi", NULL, NULL,
      "run under mpirun: the ranks share the work (only in a binary built with MERKLE_MPI)",
      "Under *mpirun*(1) (or *srun* under Slurm) every rank reads and hashes an aligned range "
      "of leaves of each _FILE_ from a shared file system, and rank 0 prints exactly what "
      "*merkle root* prints, with the same exit status on every rank. *-j* is then the number "
      "of threads per rank (default: the node's cores divided among its ranks). Standard "
      "input, *--leaves* lists and non-regular files are done by rank 0 alone. A failure on "
      "any rank is reported as \"merkle: _NAME_: _reason_ (rank _R_ on _HOST_)\". A binary "
      "built without MERKLE_MPI refuses it (exit 2). Example: *mpirun -np 4 merkle root --mpi "
      "big.img*." },
    CLI_OPT_END_ROW,
};

const cli_cmd root_spec = {
    "root",
    NULL,
    "Usage: merkle root [OPTIONS] [FILE...]\n"
    "Print the Merkle root of each FILE (or standard input) as '<hex>  <name>'.\n",
    { root_input_opts, root_shape_opts, root_shape_out_opts, root_mpi_opts },
    "With no FILE, or when FILE is -, read standard input.\n"
    "Exit status: 0 success, 1 if any input could not be read or parsed, 2 usage error.\n",
    0,
};

void root_opts_init(root_opts *o)
{
    memset(o, 0, sizeof *o);
    o->profile = MERKLE_PROFILE_RFC6962;
}

int root_opt_apply(root_opts *o, const cli_cmd *cmd, int id, const char *arg)
{
    switch (id) {
    case OPT_PROFILE:
        o->verity = 0;
        if (strcmp(arg, "fsverity") == 0 || strcmp(arg, "dm-verity") == 0) {
            o->verity = arg[0] == 'f' ? MERKLE_VERITY_FSVERITY : MERKLE_VERITY_DMVERITY;
            o->profile = MERKLE_PROFILE_RFC6962;
            return 0;
        }
        if (merkle_profile_from_name(&o->profile, arg) != MERKLE_OK)
            return cli_cmd_usage(cmd,
                                 "unknown profile '%s' (rfc6962, sia, bitcoin, ssz, "
                                 "openzeppelin, bittorrent-v2, fsverity or dm-verity)",
                                 arg);
        return 0;
    case OPT_BLOCK_SIZE:
        if (cli_parse_size(arg, &o->block_size) != 0 || o->block_size == 0)
            return cli_cmd_usage(cmd, "--block-size must be a positive integer, got '%s'", arg);
        return 0;
    case OPT_SALT: o->salt_hex = arg; return 0;
    case OPT_HASH_TREE: o->hash_tree = arg; return 0;
    case OPT_HASH: o->hash_name = arg; return 0;
    case OPT_LEAF_SIZE:
        if (cli_parse_size(arg, &o->leaf_size_given) != 0 || o->leaf_size_given > SIZE_MAX / 2)
            return cli_cmd_usage(cmd, "--leaf-size must be a positive integer, got '%s'", arg);
        return 0;
    case OPT_LEAVES: o->leaves = 1; return 0;
    case OPT_0X: cli_hex_0x = 1; return 0;
    case OPT_LEAF_HASHES: o->leaves = o->leaf_hashes = 1; return 0;
    case OPT_INTERNAL_ORDER: o->internal_order = 1; return 0;
    case OPT_STRICT: o->strict = 1; return 0;
    case OPT_BLOCK: o->block = 1; return 0;
    case OPT_LIMIT:
        if (cli_parse_u64(arg, &o->limit) != 0 || o->limit == 0 || o->limit > ((uint64_t)1 << 62))
            return cli_cmd_usage(cmd, "--limit needs a chunk count 1..2^62, got '%s'", arg);
        return 0;
    case OPT_MIX_IN_LENGTH: o->mix_in = 1; return 0;
    case OPT_VALUES: o->values = arg; return 0;
    case OPT_DUMP: o->dump = arg; return 0;
    case OPT_LOAD: o->load = 1; return 0;
    case OPT_RENDER: o->render = 1; return 0;
    case OPT_PIECE_LAYER:
        if (cli_parse_size(arg, &o->piece_layer) != 0 || o->piece_layer < 16384 ||
            (o->piece_layer & (o->piece_layer - 1)) || o->piece_layer > ((uint64_t)1 << 40))
            return cli_cmd_usage(
                cmd, "--piece-layer needs a power of two of at least 16K, got '%s'", arg);
        return 0;
    case 'j': {
        int rc = cli_parse_jobs(cmd, arg, &o->threads);
        o->threads_given = o->threads > 0;
        return rc;
    }
    case OPT_MPI: o->mpi = 1; return 0;
    case 'q': o->quiet = 1; return 0;
    default: return 1;
    }
}

int root_opts_finish(root_opts *o, const cli_cmd *cmd)
{
    merkle_hash_alg def_hash;
    size_t def_leaf;
    merkle_profile_defaults(&def_hash, &def_leaf, o->profile);
    o->hash = def_hash;
    o->have_hash = o->hash_name != NULL;
    if (!o->verity && (o->block_size || o->salt_hex || o->hash_tree))
        return cli_cmd_usage(cmd, "--%s belongs to the fsverity and dm-verity profiles",
                             o->block_size ? "block-size"
                             : o->salt_hex ? "salt"
                                           : "hash-tree");
    if (o->verity) {
        if (o->hash_name && strcmp(o->hash_name, "sha256") != 0)
            return cli_cmd_usage(cmd, "the verity profiles hash with sha256");
        if (o->leaves || o->leaf_size_given)
            return cli_cmd_usage(cmd, "the verity profiles cut FILE into --block-size blocks "
                                      "(no --leaves or --leaf-size)");
        if (o->hash_tree && o->verity != MERKLE_VERITY_DMVERITY)
            return cli_cmd_usage(cmd, "--hash-tree belongs to the dm-verity profile");
        if (o->mpi) return cli_cmd_usage(cmd, "--mpi serves the rfc6962 and sia profiles only");
        o->hash = MERKLE_HASH_SHA256;
        o->leaf_size = o->block_size ? (size_t)o->block_size : 4096;
        if (o->threads == 0) o->threads = cli_num_cpus();
        return 0;
    }
    if (o->hash_name && merkle_hash_alg_from_name(&o->hash, o->hash_name) != MERKLE_OK)
        return cli_cmd_usage(cmd, "unknown hash '%s' (sha256, blake2b-256 or keccak256)",
                             o->hash_name);
    if (shaped_check_opts(o, cmd->name) != 0) return CLI_USAGE;
    if (!root_profile_classic(o->profile) && o->leaf_size_given)
        return cli_cmd_usage(cmd, "--leaf-size does not apply to the %s profile",
                             merkle_profile_name(o->profile));
    o->leaf_size = o->leaf_size_given ? (size_t)o->leaf_size_given : def_leaf;
    if (o->leaves && o->leaf_size_given)
        return cli_cmd_usage(cmd, "--leaves and --leaf-size cannot be used together");
    if (o->threads == 0) o->threads = cli_num_cpus();
    return 0;
}

/* Parse root's options; 0 and *first_arg, or an exit status (-1 after --help). */
static int root_parse(int argc, char **argv, root_opts *o, int *first_arg)
{
    const cli_cmd *cmd = &root_spec;
    root_opts_init(o);
    cli_parser p;
    cli_parser_init(&p, cmd, argc, argv);
    const char *arg;
    int c, rc;
    while ((c = cli_opt_next(&p, &arg)) != CLI_OPT_END) {
        if (c == CLI_OPT_HELP) return -1;
        if (c == CLI_OPT_ERROR) return cli_cmd_usage_rc(cmd);
        if ((rc = root_opt_apply(o, cmd, c, arg)) != 0) return rc;
    }
    *first_arg = optind;
    return root_opts_finish(o, cmd);
}

int cmd_root(int argc, char **argv)
{
    root_opts o;
    int first = 1;
    int rc = root_parse(argc, argv, &o, &first);
    if (rc == -1) return CLI_OK; /* --help */
    if (rc != 0) return rc;
    static const char *stdin_only[] = { "-" };
    const char **names = first < argc ? (const char **)argv + first : stdin_only;
    int n = first < argc ? argc - first : 1;
    if (o.verity) {
        if (o.hash_tree && n != 1) return cli_cmd_usage(&root_spec, "--hash-tree takes one FILE");
        int status = CLI_OK;
        for (int i = 0; i < n; i++)
            if (verity_root(&o, names[i]) != 0) status = CLI_FAIL;
        if (fflush(stdout) != 0 || ferror(stdout)) {
            cli_error("write error: %s", strerror(errno));
            return CLI_FAIL;
        }
        return status;
    }
    if (o.mpi && !root_profile_classic(o.profile))
        return cli_cmd_usage(&root_spec, "--mpi serves the rfc6962 and sia profiles only");
    if (o.mpi) return root_run_mpi(&o, names, n);
    int status = CLI_OK;
    for (int i = 0; i < n; i++) {
        uint8_t root[MERKLE_HASH_LEN];
        root_result res;
        if (o.piece_layer) {
            if (shaped_piece_layer(&o, names[i]) != 0) status = CLI_FAIL;
            continue;
        }
        if (o.render) {
            if (shaped_render(&o, names[i]) != 0) status = CLI_FAIL;
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
