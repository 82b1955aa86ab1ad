// SPDX-License-Identifier: MIT OR Apache-2.0

package merkle_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	merkle "merkle.local/go"
	"merkle.local/go/internal/reftest"
)

// writeTree makes n files in a new directory and returns it with an md5sum manifest and a
// sha256sum manifest of them (computed here with Go's crypto, the reference).
func writeTree(t *testing.T, n int) (dir string, md5list, shalist []byte) {
	dir = t.TempDir()
	var m, s bytes.Buffer
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("f%03d.bin", i)
		data := bytes.Repeat([]byte{byte(i), byte(i * 7)}, 100*i+1)
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		h := md5.Sum(data)
		fmt.Fprintf(&m, "%x  %s\n", h, name)
		h2 := sha256.Sum256(data)
		fmt.Fprintf(&s, "%x  %s\n", h2, name)
	}
	return dir, m.Bytes(), s.Bytes()
}

func TestManifestParse(t *testing.T) {
	text := []byte("d41d8cd98f00b204e9800998ecf8427e  empty\nnot a line\n# comment\nMD5 (b) = d41d8cd98f00b204e9800998ecf8427e\nd41d8cd98f00b204e9800998ecf8427e *bin")
	m, err := merkle.ParseManifest(text, merkle.ManifestAuto, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	es := m.Entries()
	if m.Len() != 3 || len(es) != 3 || m.Lines() != 5 {
		t.Fatalf("%d entries, %d lines", m.Len(), m.Lines())
	}
	if es[0].Name != "empty" || es[0].Alg != merkle.MD5 || hex.EncodeToString(es[0].Digest) != "d41d8cd98f00b204e9800998ecf8427e" || es[0].Line != 1 {
		t.Errorf("entry 0: %+v", es[0])
	}
	if !es[1].BSD || es[1].Name != "b" || !es[2].Binary || es[2].Line != 5 {
		t.Errorf("entries 1, 2: %+v %+v", es[1], es[2])
	}
	if bl := m.BadLines(); len(bl) != 1 || bl[0] != 2 {
		t.Errorf("bad lines %v", bl)
	}
	if _, err := merkle.ParseManifest(text, merkle.ManifestAuto, 65); !errors.Is(err, merkle.ErrArg) {
		t.Errorf("digest length 65: %v", err)
	}
	m.Close()
	m.Close()
	if _, err := m.DirRoot(); !errors.Is(err, merkle.ErrState) {
		t.Errorf("DirRoot after Close: %v", err)
	}
}

func TestManifestCheck(t *testing.T) {
	dir, md5list, shalist := writeTree(t, 40)
	ctx := context.Background()
	for _, list := range [][]byte{md5list, shalist} {
		m, err := merkle.ParseManifest(list, merkle.ManifestAuto, 0)
		if err != nil {
			t.Fatal(err)
		}
		res, err := m.Check(ctx, merkle.CheckOptions{Dir: dir, Threads: 3})
		if err != nil || len(res) != 40 {
			t.Fatalf("check: %d results, %v", len(res), err)
		}
		for i, r := range res {
			if r.Status != merkle.CheckOK || r.FromCache || r.Size != uint64(2*(100*i+1)) || !bytes.Equal(r.Digest, m.Entries()[i].Digest) {
				t.Errorf("file %d: %+v", i, r)
			}
		}
		m.Close()
	}
	// A changed file, a missing one, an unreadable name: results, not errors.
	os.WriteFile(filepath.Join(dir, "f001.bin"), []byte("changed"), 0o644)
	os.Remove(filepath.Join(dir, "f002.bin"))
	m, _ := merkle.ParseManifest(md5list, merkle.MD5, 0)
	defer m.Close()
	res, err := m.Check(ctx, merkle.CheckOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Status != merkle.CheckOK || res[1].Status != merkle.CheckMismatch || res[2].Status != merkle.CheckMissing {
		t.Errorf("statuses %v %v %v", res[0].Status, res[1].Status, res[2].Status)
	}
	if want := md5.Sum([]byte("changed")); !bytes.Equal(res[1].Digest, want[:]) {
		t.Errorf("digest of the changed file %x", res[1].Digest)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := m.Check(cctx, merkle.CheckOptions{Dir: dir}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled check: %v", err)
	}
	if _, err := m.Check(ctx, merkle.CheckOptions{Dir: "a\x00b"}); !errors.Is(err, merkle.ErrArg) {
		t.Errorf("NUL in the directory: %v", err)
	}
}

func TestManifestCache(t *testing.T) {
	dir, md5list, _ := writeTree(t, 12)
	m, _ := merkle.ParseManifest(md5list, merkle.MD5, 0)
	defer m.Close()
	cpath := filepath.Join(t.TempDir(), "cache")
	ctx := context.Background()
	// The cache answers only for files older than the moment they verified (racy
	// timestamps): wait out the file system's timestamp granularity, longer each try.
	hit := false
	for _, wait := range []time.Duration{50 * time.Millisecond, 500 * time.Millisecond, 1100 * time.Millisecond} {
		time.Sleep(wait)
		c, err := merkle.OpenCache(cpath, []byte("key"))
		if err != nil {
			t.Fatal(err)
		}
		res, err := m.Check(ctx, merkle.CheckOptions{Dir: dir, Cache: c})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Save(); err != nil {
			t.Fatal(err)
		}
		c.Close()
		c, err = merkle.OpenCache(cpath, []byte("key"))
		if err != nil || c.Len() != 12 {
			t.Fatalf("reloaded cache: %d entries, %v", c.Len(), err)
		}
		res, err = m.Check(ctx, merkle.CheckOptions{Dir: dir, Cache: c})
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
		all := true
		for _, r := range res {
			all = all && r.Status == merkle.CheckOK && r.FromCache
		}
		if all {
			hit = true
			break
		}
	}
	if !hit {
		t.Fatal("a reloaded cache answered for none of the unchanged files")
	}
	// Same size, new content: never OK from the cache.
	old, _ := os.ReadFile(filepath.Join(dir, "f005.bin"))
	old[0] ^= 0xff
	os.WriteFile(filepath.Join(dir, "f005.bin"), old, 0o644)
	c, _ := merkle.OpenCache(cpath, []byte("key"))
	res, _ := m.Check(ctx, merkle.CheckOptions{Dir: dir, Cache: c})
	c.Close()
	if res[5].Status != merkle.CheckMismatch || res[5].FromCache {
		t.Errorf("changed file: %+v", res[5])
	}
	// Another key: the entries are not trusted.
	c, _ = merkle.OpenCache(cpath, []byte("other key"))
	res, _ = m.Check(ctx, merkle.CheckOptions{Dir: dir, Cache: c})
	c.Close()
	if res[0].FromCache {
		t.Error("an entry of another key answered")
	}
	// A path that is not a cache is refused, and Save does not write over it.
	notCache := filepath.Join(dir, "f000.bin")
	before, _ := os.ReadFile(notCache)
	if _, err := merkle.OpenCache(notCache, nil); !errors.Is(err, merkle.ErrUnsafe) {
		t.Errorf("a data file taken as a cache: %v", err)
	}
	if after, _ := os.ReadFile(notCache); !bytes.Equal(before, after) {
		t.Error("the data file was changed")
	}
}

func TestDirRootAndVerifiedReader(t *testing.T) {
	dir, _, shalist := writeTree(t, 9)
	m, err := merkle.ParseManifest(shalist, merkle.SHA256, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	// The reference: leaves u32be(len(name)) || name || u8(alg) || u8(len) || digest, sorted
	// by name bytes, RFC 6962 root (docs/manifest.md).
	es := m.Entries()
	sort.Slice(es, func(i, j int) bool { return es[i].Name < es[j].Name })
	var leaves [][]byte
	for _, e := range es {
		l := binary.BigEndian.AppendUint32(nil, uint32(len(e.Name)))
		l = append(l, e.Name...)
		l = append(l, byte(e.Alg), byte(len(e.Digest)))
		leaves = append(leaves, append(l, e.Digest...))
	}
	root, err := m.DirRoot()
	if err != nil || !bytes.Equal(root[:], reftest.MTH(leaves)) {
		t.Fatalf("dir root %x %v", root, err)
	}
	dup, _ := merkle.ParseManifest(append(append([]byte{}, shalist...), shalist[:bytes.IndexByte(shalist, 10)+1]...), merkle.SHA256, 0)
	defer dup.Close()
	if _, err := dup.DirRoot(); !errors.Is(err, merkle.ErrFormat) {
		t.Errorf("duplicate names: %v", err)
	}

	vr, err := merkle.NewVerifiedReader(m, dir, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer vr.Close()
	want, _ := os.ReadFile(filepath.Join(dir, "f004.bin"))
	r, err := vr.Open("f004.bin")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(r)
	if !bytes.Equal(got, want) {
		t.Fatal("verified read returned other bytes")
	}
	want[3] ^= 1
	os.WriteFile(filepath.Join(dir, "f004.bin"), want, 0o644)
	if b, err := vr.ReadFile("f004.bin"); !errors.Is(err, merkle.ErrVerify) || b != nil {
		t.Errorf("tampered file: %d bytes, %v", len(b), err)
	}
	if _, err := vr.ReadFile("not listed"); !errors.Is(err, merkle.ErrArg) {
		t.Errorf("unlisted name: %v", err)
	}
}
