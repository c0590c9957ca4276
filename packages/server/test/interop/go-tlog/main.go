// An independent reader of a C2SP tiled log, built on Go's golang.org/x/mod/sumdb/tlog and
// sumdb/note (code this project did not write). Given the log's URL prefix and its Ed25519 vkey it:
// opens the checkpoint with note.Open; authenticates every tile it reads against the checkpoint
// root (tlog.TileHashReader); recomputes the root; proves every entry included (ProveRecord and
// CheckRecord) after checking it hashes to its leaf; and proves the tree consistent with an older
// size when one is given. It prints one JSON line and exits non-zero on any failure.
package main

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}

func get(url string) []byte {
	res, err := http.Get(url)
	if err != nil {
		fail("GET %s: %v", url, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != 200 {
		fail("GET %s: status %d %v", url, res.StatusCode, err)
	}
	return b
}

// C2SP paths: sumdb's "tile/8/<L>/<N>" is "tile/<L>/<N>", its data tiles "tile/entries/<N>".
func c2spPath(t tlog.Tile) string {
	p := t.Path()
	p = strings.TrimPrefix(p, "tile/8/")
	p = strings.Replace(p, "data/", "entries/", 1)
	return "tile/" + p
}

type reader struct {
	prefix  string
	fetched int
	cache   map[string][]byte
}

func (r *reader) Height() int { return 8 }

func (r *reader) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		p := c2spPath(t)
		if b, ok := r.cache[p]; ok {
			out[i] = b
			continue
		}
		out[i] = get(r.prefix + p)
		r.cache[p] = out[i]
		r.fetched++
	}
	return out, nil
}

func (r *reader) SaveTiles(tiles []tlog.Tile, data [][]byte) {}

// cosig <base64 Ed25519 public key> <note file> <cosigner name>: checks every cosignature/v1 line
// of that name in the note with crypto/ed25519 over "cosignature/v1\ntime <t>\n" || note text.
func cosig() {
	pub, err := base64.StdEncoding.DecodeString(os.Args[2])
	if err != nil || len(pub) != ed25519.PublicKeySize {
		fail("public key: %v", err)
	}
	raw, err := os.ReadFile(os.Args[3])
	if err != nil {
		fail("note: %v", err)
	}
	s := string(raw)
	i := strings.LastIndex(s, "\n\n")
	if i < 0 {
		fail("not a note")
	}
	text := s[:i+1]
	checked := 0
	for _, line := range strings.Split(strings.TrimSuffix(s[i+2:], "\n"), "\n") {
		parts := strings.SplitN(line, " ", 3)
		if len(parts) != 3 || parts[1] != os.Args[4] {
			continue
		}
		sig, err := base64.StdEncoding.DecodeString(parts[2])
		if err != nil || len(sig) != 4+8+64 {
			continue // another type under the same name (ML-DSA-44)
		}
		t := binary.BigEndian.Uint64(sig[4:12])
		msg := fmt.Sprintf("cosignature/v1\ntime %d\n%s", t, text)
		if !ed25519.Verify(ed25519.PublicKey(pub), []byte(msg), sig[12:]) {
			fail("cosignature of %s does not verify", os.Args[4])
		}
		checked++
	}
	if checked == 0 {
		fail("no cosignature/v1 line of %s", os.Args[4])
	}
	fmt.Printf("{\"checked\":%d}\n", checked)
}

func main() {
	if len(os.Args) == 5 && os.Args[1] == "cosig" {
		cosig()
		return
	}
	if len(os.Args) < 3 {
		fail("usage: check <prefix URL ending in /> <ed25519 vkey> [older size]")
	}
	prefix, vkey := os.Args[1], os.Args[2]
	verifier, err := note.NewVerifier(vkey)
	if err != nil {
		fail("vkey: %v", err)
	}
	raw := get(prefix + "checkpoint")
	n, err := note.Open(raw, note.VerifierList(verifier))
	if err != nil {
		fail("note.Open: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(n.Text, "\n"), "\n")
	if len(lines) < 3 || lines[0] != verifier.Name() {
		fail("checkpoint text: %q", n.Text)
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil {
		fail("size: %v", err)
	}
	rootBytes, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(rootBytes) != 32 {
		fail("root: %v", err)
	}
	var root tlog.Hash
	copy(root[:], rootBytes)
	tree := tlog.Tree{N: size, Hash: root}
	r := &reader{prefix: prefix, cache: map[string][]byte{}}
	hr := tlog.TileHashReader(tree, r)
	if size > 0 {
		th, err := tlog.TreeHash(size, hr)
		if err != nil || th != root {
			fail("TreeHash: %v", err)
		}
	}
	entries := 0
	for start := int64(0); start < size; start += 256 {
		w := size - start
		if w > 256 {
			w = 256
		}
		t := tlog.Tile{H: 8, L: -1, N: start / 256, W: int(w)}
		bundle := get(prefix + c2spPath(t))
		for i := int64(0); i < w; i++ {
			if len(bundle) < 2 {
				fail("bundle %d truncated", t.N)
			}
			l := int(bundle[0])<<8 | int(bundle[1])
			if len(bundle) < 2+l {
				fail("bundle %d truncated", t.N)
			}
			data := bundle[2 : 2+l]
			bundle = bundle[2+l:]
			index := start + i
			leaf := tlog.RecordHash(data)
			hs, err := hr.ReadHashes([]int64{tlog.StoredHashIndex(0, index)})
			if err != nil || hs[0] != leaf {
				fail("entry %d does not hash to its leaf: %v", index, err)
			}
			p, err := tlog.ProveRecord(size, index, hr)
			if err != nil {
				fail("ProveRecord %d: %v", index, err)
			}
			if err := tlog.CheckRecord(p, size, root, index, leaf); err != nil {
				fail("CheckRecord %d: %v", index, err)
			}
			entries++
		}
		if !bytes.Equal(bundle, nil) && len(bundle) != 0 {
			fail("bundle %d has trailing bytes", t.N)
		}
	}
	older := int64(-1)
	if len(os.Args) > 3 {
		older, _ = strconv.ParseInt(os.Args[3], 10, 64)
		if older > 0 && older <= size {
			p, err := tlog.ProveTree(size, older, hr)
			if err != nil {
				fail("ProveTree: %v", err)
			}
			oh, err := tlog.TreeHash(older, hr)
			if err != nil {
				fail("TreeHash(older): %v", err)
			}
			if err := tlog.CheckTree(p, size, root, older, oh); err != nil {
				fail("CheckTree: %v", err)
			}
		}
	}
	out, _ := json.Marshal(map[string]interface{}{
		"origin": lines[0], "size": size, "entries": entries, "tiles": r.fetched, "signer": verifier.Name(), "older": older,
	})
	fmt.Println(string(out))
}
