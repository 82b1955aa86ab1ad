// SPDX-License-Identifier: MIT OR Apache-2.0

package merkle

/*
#include <stdlib.h>
#include <string.h>
#include <merkle/mdb.h>

static merkle_mdb_maybe gm_maybe(const uint8_t *p, size_t n, int some)
{
	merkle_mdb_maybe m = { p ? p : (const uint8_t *)"", n, some };
	return m;
}

// Commit n operations whose keys and values are items 2i and 2i+1 of a packed list.
static merkle_status gm_mdb_commit(merkle_mdb_db *db, const uint8_t *base, const size_t *lens,
                                   const uint8_t *dels, size_t n, int *recorded, merkle_error *e)
{
	merkle_mdb_op *ops = calloc(n ? n : 1, sizeof *ops);
	if (!ops)
		return MERKLE_ERR_NOMEM;
	size_t off = 0;
	for (size_t i = 0; i < n; i++) {
		ops[i].key = base + off;
		ops[i].key_len = lens[2 * i];
		off += lens[2 * i];
		ops[i].value = base + off;
		ops[i].value_len = lens[2 * i + 1];
		off += lens[2 * i + 1];
		ops[i].del = dels[i];
	}
	merkle_status s = merkle_mdb_db_commit(db, ops, n, recorded, e);
	free(ops);
	return s;
}

// Encode a proof into a malloc'd buffer and free the proof.
static merkle_status gm_mdb_encode(merkle_mdb_proof *p, merkle_mdb_msg msg, uint8_t **out,
                                   size_t *len)
{
	size_t need = 0;
	merkle_status s = merkle_mdb_proof_encode(NULL, 0, &need, p, msg);
	if (s == MERKLE_OK || s == MERKLE_ERR_BUFFER) {
		*out = malloc(need ? need : 1);
		s = *out ? merkle_mdb_proof_encode(*out, need, len, p, msg) : MERKLE_ERR_NOMEM;
	}
	merkle_mdb_proof_free(p);
	return s;
}

static merkle_status gm_mdb_range(merkle_mdb_db *db, merkle_mdb_result *res, merkle_mdb_maybe start,
                                  merkle_mdb_maybe end, int64_t max_length, const uint8_t *at_root,
                                  uint8_t **out, size_t *len)
{
	merkle_mdb_proof *p = NULL;
	merkle_status s = merkle_mdb_prove_range(&p, res, db, start, end, max_length, at_root);
	if (s != MERKLE_OK)
		return s;
	return gm_mdb_encode(p, MERKLE_MDB_RANGE_PROOF, out, len);
}

static merkle_status gm_mdb_change(merkle_mdb_db *db, merkle_mdb_result *res, const uint8_t *from,
                                   const uint8_t *to, merkle_mdb_maybe start, merkle_mdb_maybe end,
                                   int64_t max_length, uint8_t **out, size_t *len)
{
	merkle_mdb_proof *p = NULL;
	merkle_status s = merkle_mdb_prove_change(&p, res, db, from, to, start, end, max_length);
	if (s != MERKLE_OK)
		return s;
	return gm_mdb_encode(p, MERKLE_MDB_CHANGE_PROOF, out, len);
}

static merkle_status gm_mdb_verify(merkle_mdb_result *res, merkle_mdb_msg msg, const uint8_t *buf,
                                   size_t len, merkle_trie *db, merkle_mdb_maybe start,
                                   merkle_mdb_maybe end, const uint8_t *root, unsigned bf,
                                   int64_t max_length)
{
	merkle_mdb_proof *p = NULL;
	merkle_status s = merkle_mdb_proof_decode(&p, res, msg, buf ? buf : (const uint8_t *)"", len);
	if (s != MERKLE_OK)
		return s;
	if (msg == MERKLE_MDB_RANGE_PROOF)
		s = merkle_mdb_verify_range(res, p, start, end, root, bf, max_length);
	else
		s = merkle_mdb_verify_change(res, p, db, start, end, root, max_length);
	merkle_mdb_proof_free(p);
	return s;
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Maybe is a byte string that may be absent (merkledb's maybe.Maybe[[]byte]).
type Maybe struct {
	Value []byte
	Some  bool
}

// Some returns a present Maybe (an empty or nil b is Some(empty)).
func Some(b []byte) Maybe { return Maybe{Value: b, Some: true} }

// Nothing is the absent Maybe.
var Nothing = Maybe{}

func (m Maybe) c() C.merkle_mdb_maybe {
	some := C.int(0)
	if m.Some {
		some = 1
	}
	return C.gm_maybe(u8(m.Value), C.size_t(len(m.Value)), some)
}

// MDBError is a merkledb verdict: a request the Go code refuses (Status ErrState) or a proof
// that does not verify (ErrVerify) or does not decode (ErrFormat), with the Go sentinel's name
// ("ErrInvalidProof", "sync.ErrInsufficientHistory", ...) and message.
type MDBError struct {
	Op      string
	Status  Status
	Kind    int    // merkle_mdb_kind
	Name    string // the Go sentinel's name
	Message string
}

// Error formats "merkle: Op: Name: Message".
func (e *MDBError) Error() string {
	return fmt.Sprintf("merkle: %s: %s: %s", e.Op, e.Name, e.Message)
}

// Unwrap returns the Status: errors.Is(err, merkle.ErrVerify).
func (e *MDBError) Unwrap() error { return e.Status }

func mdbCheck(op string, s C.merkle_status, r *C.merkle_mdb_result, e *C.merkle_error) error {
	if s == C.MERKLE_OK {
		return nil
	}
	if r != nil && r.kind != C.MERKLE_MDB_OK {
		return &MDBError{Op: op, Status: Status(s), Kind: int(r.kind), Name: C.GoString(C.merkle_mdb_kind_name(r.kind)), Message: C.GoString(&r.message[0])}
	}
	if e != nil {
		return checkErr(op, s, e)
	}
	return check(op, s)
}

// MerkleDB is a merkledb-compatible database: a trie plus the history of committed batches
// that change proofs are made from. It holds C memory: call Close (no finalizer). Not safe for
// concurrent use.
type MerkleDB struct {
	db *C.merkle_mdb_db
	bf int
}

// NewMerkleDB returns an empty database with branch factor 2, 4, 16 or 256 keeping the last
// history commits (0: merkledb's default, 300).
func NewMerkleDB(branchFactor, history int) (*MerkleDB, error) {
	if branchFactor <= 0 || history < 0 {
		return nil, &Error{Op: "NewMerkleDB", Status: ErrArg}
	}
	var db *C.merkle_mdb_db
	if err := check("NewMerkleDB", C.merkle_mdb_db_alloc(&db, C.unsigned(branchFactor), C.size_t(history))); err != nil {
		return nil, err
	}
	return &MerkleDB{db: db, bf: branchFactor}, nil
}

// Close releases the database. Calling it twice, or on nil, is harmless.
func (d *MerkleDB) Close() {
	if d != nil && d.db != nil {
		C.merkle_mdb_db_free(d.db)
		d.db = nil
	}
}

func (d *MerkleDB) live(op string) error {
	if d == nil || d.db == nil {
		return &Error{Op: op, Status: ErrState, Detail: "database is closed"}
	}
	return nil
}

// BatchOp is one operation of a batch: put Key -> Value, or delete Key.
type BatchOp struct {
	Key, Value []byte
	Delete     bool
}

// Commit writes one batch (the last operation on a key wins) and says whether it was
// recorded in the history (it puts a key or deletes a present one).
func (d *MerkleDB) Commit(ops []BatchOp) (bool, error) {
	if err := d.live("MerkleDB.Commit"); err != nil {
		return false, err
	}
	items := make([][]byte, 0, 2*len(ops))
	dels := make([]byte, len(ops)+1)
	for i, o := range ops {
		items = append(items, o.Key, o.Value)
		if o.Delete {
			dels[i] = 1
		}
	}
	pk, err := packed(items)
	if err != nil {
		return false, err
	}
	defer pk.free()
	var rec C.int
	var e C.merkle_error
	s := C.gm_mdb_commit(d.db, pk.buf, pk.lens, (*C.uint8_t)(unsafe.Pointer(&dels[0])), C.size_t(len(ops)), &rec, &e)
	return rec != 0, checkErr("MerkleDB.Commit", s, &e)
}

// Root returns the current root ID.
func (d *MerkleDB) Root() ([32]byte, error) {
	var out [32]byte
	if err := d.live("MerkleDB.Root"); err != nil {
		return out, err
	}
	var e C.merkle_error
	err := checkErr("MerkleDB.Root", C.merkle_trie_root(h32(&out), C.merkle_mdb_db_trie(d.db), 1, &e), &e)
	return out, err
}

func takeC(buf *C.uint8_t, n C.size_t) []byte {
	defer C.free(unsafe.Pointer(buf))
	return goBytes(unsafe.Pointer(buf), n)
}

// RangeProof is GetRangeProof(start, end, maxLength) (or, with atRoot, GetRangeProofAtRoot)
// encoded as the sync.RangeProof protobuf message. A request merkledb refuses is an
// *MDBError with Status ErrState (ErrStartAfterEnd, ErrEmptyProof, ...).
func (d *MerkleDB) RangeProof(start, end Maybe, maxLength int, atRoot *[32]byte) ([]byte, error) {
	if err := d.live("MerkleDB.RangeProof"); err != nil {
		return nil, err
	}
	var res C.merkle_mdb_result
	var buf *C.uint8_t
	var n C.size_t
	var at *C.uint8_t
	var root [32]byte
	if atRoot != nil {
		root = *atRoot
		at = h32(&root)
	}
	s := C.gm_mdb_range(d.db, &res, start.c(), end.c(), C.int64_t(maxLength), at, &buf, &n)
	if err := mdbCheck("MerkleDB.RangeProof", s, &res, nil); err != nil {
		return nil, err
	}
	return takeC(buf, n), nil
}

// ChangeProof is GetChangeProof(from, to, start, end, maxLength) over the history, encoded as
// the sync.ChangeProof message (refusals as for RangeProof: errSameRoot, sync.ErrNoEndRoot,
// sync.ErrInsufficientHistory, ...).
func (d *MerkleDB) ChangeProof(from, to [32]byte, start, end Maybe, maxLength int) ([]byte, error) {
	if err := d.live("MerkleDB.ChangeProof"); err != nil {
		return nil, err
	}
	var res C.merkle_mdb_result
	var buf *C.uint8_t
	var n C.size_t
	s := C.gm_mdb_change(d.db, &res, h32(&from), h32(&to), start.c(), end.c(), C.int64_t(maxLength), &buf, &n)
	if err := mdbCheck("MerkleDB.ChangeProof", s, &res, nil); err != nil {
		return nil, err
	}
	return takeC(buf, n), nil
}

// VerifyRangeProof decodes an encoded sync.RangeProof and verifies it as RangeProof.Verify(start,
// end, root, tokenSize(branchFactor), maxLength) does: nil, or an *MDBError with merkledb's
// verdict (Status ErrVerify, or ErrFormat when it does not decode).
func VerifyRangeProof(proof []byte, start, end Maybe, root [32]byte, branchFactor, maxLength int) error {
	if branchFactor <= 0 {
		return &Error{Op: "VerifyRangeProof", Status: ErrArg}
	}
	var res C.merkle_mdb_result
	s := C.gm_mdb_verify(&res, C.MERKLE_MDB_RANGE_PROOF, u8(proof), C.size_t(len(proof)), nil, start.c(), end.c(), h32(&root), C.unsigned(branchFactor), C.int64_t(maxLength))
	return mdbCheck("VerifyRangeProof", s, &res, nil)
}

// VerifyChangeProof decodes an encoded sync.ChangeProof and verifies it, as
// MerkleDB.VerifyChangeProof does, against this database's key/values (not changed).
func (d *MerkleDB) VerifyChangeProof(proof []byte, start, end Maybe, root [32]byte, maxLength int) error {
	if err := d.live("MerkleDB.VerifyChangeProof"); err != nil {
		return err
	}
	var res C.merkle_mdb_result
	s := C.gm_mdb_verify(&res, C.MERKLE_MDB_CHANGE_PROOF, u8(proof), C.size_t(len(proof)), C.merkle_mdb_db_trie(d.db), start.c(), end.c(), h32(&root), C.unsigned(d.bf), C.int64_t(maxLength))
	return mdbCheck("MerkleDB.VerifyChangeProof", s, &res, nil)
}
