// An independent checker of SCITT Signed Statements and RFC 9942 receipts signed with Ed25519,
// built on code this project did not write: github.com/fxamacker/cbor (CBOR), Go's crypto/ed25519,
// and golang.org/x/mod/sumdb/note and sumdb/tlog (the C2SP checkpoint and the RFC 6962 proof). The
// COSE rules (RFC 9052's Sig_structure, RFC 9942's vdp and vds, RFC 9162's root from a path) are
// written here from the RFCs, not from this project's TypeScript.
//
//	statement <issuer ed25519 key, base64> <statement file>
//	receipt <log ed25519 key, base64> <leaf entry hex> <receipt file> [<checkpoint file> <vkey>]
//
// It prints one JSON line and exits non-zero on any failure, naming it on stderr.
package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"

	"github.com/fxamacker/cbor/v2"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}

// A COSE_Sign1 (RFC 9052 s.4.2): tag 18 around [protected bstr, unprotected map, payload bstr / nil, signature bstr].
type sign1 struct {
	_           struct{} `cbor:",toarray"`
	Protected   []byte
	Unprotected map[int64]cbor.RawMessage
	Payload     []byte
	Signature   []byte
}

var strict = func() cbor.DecMode {
	m, err := cbor.DecOptions{DupMapKey: cbor.DupMapKeyEnforcedAPF, IndefLength: cbor.IndefLengthForbidden}.DecMode()
	if err != nil {
		panic(err)
	}
	return m
}()

func readSign1(b []byte) sign1 {
	var tag cbor.RawTag
	if err := strict.Unmarshal(b, &tag); err != nil || tag.Number != 18 {
		fail("not a tagged COSE_Sign1: %v", err)
	}
	var s sign1
	if err := strict.Unmarshal(tag.Content, &s); err != nil {
		fail("COSE_Sign1 body: %v", err)
	}
	return s
}

func header(protected []byte) map[int64]cbor.RawMessage {
	h := map[int64]cbor.RawMessage{}
	if err := strict.Unmarshal(protected, &h); err != nil {
		fail("protected header: %v", err)
	}
	return h
}

func intOf(h map[int64]cbor.RawMessage, label int64) int64 {
	var v int64
	raw, ok := h[label]
	if !ok || strict.Unmarshal(raw, &v) != nil {
		fail("header label %d is not an integer", label)
	}
	return v
}

// RFC 9052 s.4.4: the bytes an Ed25519 signature covers.
func sigStructure(protected, payload []byte) []byte {
	b, err := cbor.Marshal([]interface{}{"Signature1", protected, []byte{}, payload})
	if err != nil {
		fail("Sig_structure: %v", err)
	}
	return b
}

func ed25519Alg(h map[int64]cbor.RawMessage) {
	// -8 (EdDSA) as SCITT verifiers read it today, or -19 (Ed25519, RFC 9864).
	if alg := intOf(h, 1); alg != -8 && alg != -19 {
		fail("alg %d is not Ed25519", alg)
	}
}

func key(b64 string) ed25519.PublicKey {
	k, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(k) != ed25519.PublicKeySize {
		fail("an Ed25519 public key is 32 bytes in base64")
	}
	return ed25519.PublicKey(k)
}

func read(path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		fail("%v", err)
	}
	return b
}

func statement(pub ed25519.PublicKey, b []byte) {
	s := readSign1(b)
	ed25519Alg(header(s.Protected))
	if s.Payload == nil {
		fail("a detached payload")
	}
	if !ed25519.Verify(pub, sigStructure(s.Protected, s.Payload), s.Signature) {
		fail("the statement's signature does not verify")
	}
	// manifest.json's leaf entry: the SHA-256 of the statement as registered.
	leaf := sha256.Sum256(b)
	out(map[string]interface{}{"ok": true, "leaf": hex.EncodeToString(leaf[:])})
}

// RFC 9162 s.2.1.3.2: the root an inclusion path rebuilds, or nil when it does not fit.
func rootFromPath(index, size int64, leaf tlog.Hash, path []tlog.Hash) []byte {
	if index < 0 || index >= size {
		return nil
	}
	fn, sn := index, size-1
	r := leaf
	for _, p := range path {
		if sn == 0 {
			return nil
		}
		if fn&1 == 1 || fn == sn {
			r = tlog.NodeHash(p, r)
			for fn&1 == 0 && fn != 0 {
				fn >>= 1
				sn >>= 1
			}
		} else {
			r = tlog.NodeHash(r, p)
		}
		fn >>= 1
		sn >>= 1
	}
	if sn != 0 {
		return nil
	}
	return r[:]
}

func receipt(pub ed25519.PublicKey, leafHex string, b []byte, checkpoint []byte, vkey string) {
	entry, err := hex.DecodeString(leafHex)
	if err != nil || len(entry) != 32 {
		fail("a leaf entry is 32 bytes in hex")
	}
	s := readSign1(b)
	h := header(s.Protected)
	ed25519Alg(h)
	if vds := intOf(h, 395); vds != 1 {
		fail("vds %d is not RFC9162_SHA256", vds)
	}
	if s.Payload != nil {
		fail("a receipt's payload is detached (the root)")
	}
	var vdp map[int64][][]byte
	if err := strict.Unmarshal(s.Unprotected[396], &vdp); err != nil || len(vdp[-1]) != 1 {
		fail("vdp (396) holds one inclusion proof under -1: %v", err)
	}
	var proof struct {
		_     struct{} `cbor:",toarray"`
		Size  int64
		Index int64
		Path  [][]byte
	}
	if err := strict.Unmarshal(vdp[-1][0], &proof); err != nil {
		fail("an inclusion proof is [tree_size, leaf_index, path]: %v", err)
	}
	path := make([]tlog.Hash, len(proof.Path))
	for i, p := range proof.Path {
		if len(p) != 32 {
			fail("path hash %d is not 32 bytes", i)
		}
		copy(path[i][:], p)
	}
	leaf := tlog.RecordHash(entry)
	root := rootFromPath(proof.Index, proof.Size, leaf, path)
	if root == nil {
		fail("the path does not fit leaf %d of a tree of %d", proof.Index, proof.Size)
	}
	if !ed25519.Verify(pub, sigStructure(s.Protected, root), s.Signature) {
		fail("the log's signature does not cover the root the path rebuilds")
	}
	report := map[string]interface{}{"ok": true, "size": proof.Size, "index": proof.Index, "root": hex.EncodeToString(root)}
	if checkpoint != nil {
		// The same tree as the log's C2SP checkpoint: opened with x/mod's note, and the path checked
		// by x/mod's tlog against that root.
		v, err := note.NewVerifier(vkey)
		if err != nil {
			fail("vkey: %v", err)
		}
		n, err := note.Open(checkpoint, note.VerifierList(v))
		if err != nil {
			fail("note.Open: %v", err)
		}
		t, err := tlog.ParseTree([]byte(treeLines(n.Text)))
		if err != nil {
			fail("checkpoint: %v", err)
		}
		if t.N != proof.Size || !bytes.Equal(t.Hash[:], root) {
			fail("the receipt's head (%d) is not the checkpoint's (%d)", proof.Size, t.N)
		}
		if err := tlog.CheckRecord(path, t.N, t.Hash, proof.Index, leaf); err != nil {
			fail("tlog.CheckRecord: %v", err)
		}
		report["checkpoint"] = t.N
	}
	out(report)
}

// A C2SP checkpoint's body is origin, size, root; x/mod's tree form is the last two as "go.sum database tree".
func treeLines(text string) string {
	lines := bytes.SplitN([]byte(text), []byte("\n"), 4)
	if len(lines) < 3 {
		fail("a checkpoint has origin, size and root lines")
	}
	return "go.sum database tree\n" + string(lines[1]) + "\n" + string(lines[2]) + "\n"
}

func out(v interface{}) {
	b, _ := json.Marshal(v)
	fmt.Println(string(b))
}

func main() {
	switch {
	case len(os.Args) == 4 && os.Args[1] == "statement":
		statement(key(os.Args[2]), read(os.Args[3]))
	case len(os.Args) == 5 && os.Args[1] == "receipt":
		receipt(key(os.Args[2]), os.Args[3], read(os.Args[4]), nil, "")
	case len(os.Args) == 7 && os.Args[1] == "receipt":
		receipt(key(os.Args[2]), os.Args[3], read(os.Args[4]), read(os.Args[5]), os.Args[6])
	default:
		fail("usage: statement KEY FILE | receipt KEY LEAF FILE [CHECKPOINT VKEY]")
	}
}
