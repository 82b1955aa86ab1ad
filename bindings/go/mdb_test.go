// SPDX-License-Identifier: MIT OR Apache-2.0

package merkle_test

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	merkle "merkle.local/go"
)

// The merkledb cases of ../shared/vectors (produced by avalanchego's x/merkledb; not in the
// repository): every range and change proof request, its proof bytes, and every verification.
type mdbVerdict struct {
	OK    bool   `json:"ok"`
	Stage string `json:"stage"`
	Kind  string `json:"kind"`
}

type mdbVerification struct {
	Start, End    *string
	BranchFactor  int          `json:"branch_factor"` // a verifier's own (param:other_branch_factor)
	Root          string       `json:"root"`
	MaxLength     int          `json:"max_length"`
	Proof         string       `json:"proof"`
	VerifierState string       `json:"verifier_state"`
	Verdict       mdbVerdict   `json:"verdict"`
	Others        []mdbVerdict `json:"other_verdicts"`
}

type mdbCases struct {
	States []struct {
		ID           string      `json:"id"`
		BranchFactor int         `json:"branch_factor"`
		KVs          [][2]string `json:"kvs"`
		Root         string      `json:"root"`
	} `json:"states"`
	Histories []struct {
		ID            string `json:"id"`
		BranchFactor  int    `json:"branch_factor"`
		HistoryLength int    `json:"history_length"`
		Steps         []struct {
			Ops []struct {
				Key   string  `json:"key"`
				Value *string `json:"value"`
			} `json:"ops"`
			Recorded bool   `json:"recorded"`
			Root     string `json:"root"`
		} `json:"steps"`
	} `json:"histories"`
	RangeProofs []struct {
		ID           string  `json:"id"`
		BranchFactor int     `json:"branch_factor"`
		State        string  `json:"state"`
		History      string  `json:"history"`
		AtRoot       *string `json:"at_root"`
		Start, End   *string
		MaxLength    int `json:"max_length"`
		Result       struct {
			mdbVerdict
			Proof string `json:"proof"`
		} `json:"result"`
		Verifications []mdbVerification `json:"verifications"`
	} `json:"range_proofs"`
	ChangeProofs []struct {
		ID           string `json:"id"`
		BranchFactor int    `json:"branch_factor"`
		History      string `json:"history"`
		StartRoot    string `json:"start_root"`
		EndRoot      string `json:"end_root"`
		Start, End   *string
		MaxLength    int `json:"max_length"`
		Result       struct {
			mdbVerdict
			Proof string `json:"proof"`
		} `json:"result"`
		Verifications []mdbVerification `json:"verifications"`
	} `json:"change_proofs"`
}

func unhex(t *testing.T, s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func maybe(t *testing.T, s *string) merkle.Maybe {
	if s == nil {
		return merkle.Nothing
	}
	return merkle.Some(unhex(t, *s))
}

func id32(t *testing.T, s string) [32]byte {
	var h [32]byte
	copy(h[:], unhex(t, s))
	return h
}

// agrees says whether our outcome matches Go's verdict or one of its other verdicts (where
// Go's outcome depends on map order); where Go panics, any refusal agrees.
func agrees(err error, v mdbVerdict, others []mdbVerdict) bool {
	var me *merkle.MDBError
	name := "ok"
	if err != nil {
		if !errors.As(err, &me) {
			return false
		}
		name = me.Name
	}
	for _, x := range append([]mdbVerdict{v}, others...) {
		switch {
		case x.OK && err == nil, !x.OK && x.Stage == "panic" && err != nil, !x.OK && x.Kind == name:
			return true
		}
	}
	return false
}

func TestMerkleDBVectors(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	f, err := os.Open(filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "vectors", "merkledb-proofs-public.json.gz"))
	if err != nil {
		t.Skipf("merkledb cases not found in ../shared/vectors (%v)", err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var d mdbCases
	if err := json.NewDecoder(z).Decode(&d); err != nil {
		t.Fatal(err)
	}
	states := map[string]int{}
	for i, s := range d.States {
		states[s.ID] = i
	}
	// open builds a database holding a state's key/values (one batch).
	open := func(id string, bf int) *merkle.MerkleDB {
		s := d.States[states[id]]
		db, err := merkle.NewMerkleDB(bf, 0)
		if err != nil {
			t.Fatal(err)
		}
		var ops []merkle.BatchOp
		for _, kv := range s.KVs {
			ops = append(ops, merkle.BatchOp{Key: unhex(t, kv[0]), Value: unhex(t, kv[1])})
		}
		if _, err := db.Commit(ops); err != nil {
			t.Fatal(err)
		}
		if r, _ := db.Root(); r != id32(t, s.Root) {
			t.Fatalf("state %s: root %x", id, r)
		}
		return db
	}
	histories := map[string]*merkle.MerkleDB{}
	for _, h := range d.Histories {
		db, err := merkle.NewMerkleDB(h.BranchFactor, h.HistoryLength)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for i, st := range h.Steps[1:] {
			var ops []merkle.BatchOp
			for _, o := range st.Ops {
				if o.Value == nil {
					ops = append(ops, merkle.BatchOp{Key: unhex(t, o.Key), Delete: true})
				} else {
					ops = append(ops, merkle.BatchOp{Key: unhex(t, o.Key), Value: unhex(t, *o.Value)})
				}
			}
			rec, err := db.Commit(ops)
			if r, _ := db.Root(); err != nil || rec != st.Recorded || r != id32(t, st.Root) {
				t.Fatalf("history %s step %d: recorded %v root %x %v", h.ID, i+1, rec, r, err)
			}
		}
		histories[h.ID] = db
	}
	requests, verifications, bad := 0, 0, 0
	for _, c := range d.RangeProofs {
		var db *merkle.MerkleDB
		if c.History != "" {
			db = histories[c.History]
		} else {
			db = open(c.State, c.BranchFactor)
		}
		var at *[32]byte
		if c.AtRoot != nil {
			r := id32(t, *c.AtRoot)
			at = &r
		}
		proof, err := db.RangeProof(maybe(t, c.Start), maybe(t, c.End), c.MaxLength, at)
		if c.History == "" {
			db.Close()
		}
		requests++
		if !agrees(err, c.Result.mdbVerdict, nil) || (err == nil && hex.EncodeToString(proof) != c.Result.Proof) {
			t.Errorf("%s: request: %v (proof %x)", c.ID, err, proof)
			bad++
		}
		for _, v := range c.Verifications {
			bf := c.BranchFactor
			if v.BranchFactor != 0 {
				bf = v.BranchFactor
			}
			err := merkle.VerifyRangeProof(unhex(t, v.Proof), maybe(t, v.Start), maybe(t, v.End), id32(t, v.Root), bf, v.MaxLength)
			verifications++
			if !agrees(err, v.Verdict, v.Others) {
				t.Errorf("%s: verification: ours %v, go %+v", c.ID, err, v.Verdict)
				bad++
			}
		}
	}
	for _, c := range d.ChangeProofs {
		db := histories[c.History]
		proof, err := db.ChangeProof(id32(t, c.StartRoot), id32(t, c.EndRoot), maybe(t, c.Start), maybe(t, c.End), c.MaxLength)
		requests++
		if !agrees(err, c.Result.mdbVerdict, nil) || (err == nil && hex.EncodeToString(proof) != c.Result.Proof) {
			t.Errorf("%s: request: %v", c.ID, err)
			bad++
		}
		for _, v := range c.Verifications {
			bf := c.BranchFactor
			if v.BranchFactor != 0 {
				bf = v.BranchFactor
			}
			vdb := open(v.VerifierState, bf)
			err := vdb.VerifyChangeProof(unhex(t, v.Proof), maybe(t, v.Start), maybe(t, v.End), id32(t, v.Root), v.MaxLength)
			vdb.Close()
			verifications++
			if !agrees(err, v.Verdict, v.Others) {
				t.Errorf("%s: verification: ours %v, go %+v", c.ID, err, v.Verdict)
				bad++
			}
		}
		if bad > 20 {
			t.Fatal("too many mismatches")
		}
	}
	t.Logf("%d requests and %d verifications agree with Go's x/merkledb", requests, verifications)
	if requests < 300 || verifications < 2000 {
		t.Fatalf("only %d requests, %d verifications ran", requests, verifications)
	}
}

func TestMerkleDBRoundTrip(t *testing.T) {
	db, err := merkle.NewMerkleDB(16, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var ops []merkle.BatchOp
	for i := 0; i < 200; i++ {
		ops = append(ops, merkle.BatchOp{Key: []byte{byte(i), 1}, Value: bytes.Repeat([]byte{byte(i)}, i%7)})
	}
	if rec, err := db.Commit(ops); !rec || err != nil {
		t.Fatal(rec, err)
	}
	r1, _ := db.Root()
	if _, err := db.Commit([]merkle.BatchOp{{Key: []byte{5, 1}, Delete: true}, {Key: []byte("new"), Value: []byte("v")}}); err != nil {
		t.Fatal(err)
	}
	r2, _ := db.Root()
	proof, err := db.RangeProof(merkle.Some([]byte{10}), merkle.Nothing, 50, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := merkle.VerifyRangeProof(proof, merkle.Some([]byte{10}), merkle.Nothing, r2, 16, 50); err != nil {
		t.Fatalf("honest range proof: %v", err)
	}
	err = merkle.VerifyRangeProof(proof, merkle.Some([]byte{10}), merkle.Nothing, r1, 16, 50)
	var me *merkle.MDBError
	if !errors.Is(err, merkle.ErrVerify) || !errors.As(err, &me) || me.Name != "ErrInvalidProof" {
		t.Fatalf("range proof against another root: %v", err)
	}
	if err := merkle.VerifyRangeProof(proof[:len(proof)-3], merkle.Some([]byte{10}), merkle.Nothing, r2, 16, 50); err == nil {
		t.Fatal("a truncated range proof verified")
	}
	if _, err := db.RangeProof(merkle.Some([]byte{9}), merkle.Some([]byte{1}), 10, nil); !errors.Is(err, merkle.ErrState) {
		t.Fatalf("start after end: %v", err)
	}
	cp, err := db.ChangeProof(r1, r2, merkle.Nothing, merkle.Nothing, 100)
	if err != nil {
		t.Fatal(err)
	}
	// A database at r1 verifies the change proof to r2.
	old, _ := merkle.NewMerkleDB(16, 0)
	defer old.Close()
	old.Commit(ops)
	if err := old.VerifyChangeProof(cp, merkle.Nothing, merkle.Nothing, r2, 100); err != nil {
		t.Fatalf("honest change proof: %v", err)
	}
	if _, err := db.ChangeProof(r2, r2, merkle.Nothing, merkle.Nothing, 100); !errors.Is(err, merkle.ErrState) {
		t.Fatalf("same root: %v", err)
	}
	db.Close()
	if _, err := db.Root(); !errors.Is(err, merkle.ErrState) {
		t.Fatalf("Root after Close: %v", err)
	}
}
