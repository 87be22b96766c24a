package protocol

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rewriteNames returns in with the raw text of every member name (what is
// between its quotes) replaced by f of it and after written after its
// closing quote, everything else byte for byte. A string is a member name
// when the next byte after white space is ':'.
func rewriteNames(in []byte, f func(raw string) string, after string) []byte {
	var out bytes.Buffer
	for i := 0; i < len(in); {
		if in[i] != '"' {
			out.WriteByte(in[i])
			i++
			continue
		}
		j := i + 1
		for j < len(in) && in[j] != '"' {
			if in[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(in) {
			out.Write(in[i:])
			break
		}
		k := j + 1
		for k < len(in) && (in[k] == ' ' || in[k] == '\t' || in[k] == '\n' || in[k] == '\r') {
			k++
		}
		raw, tail := string(in[i+1:j]), ""
		if k < len(in) && in[k] == ':' {
			raw, tail = f(raw), after
		}
		out.WriteString(`"` + raw + `"` + tail)
		i = j + 1
	}
	return out.Bytes()
}

// escapeFirst writes the first byte of a plain name as a \u escape.
func escapeFirst(raw string) string {
	if raw == "" || raw[0] < 0x20 || raw[0] > 0x7e || raw[0] == '\\' {
		return raw
	}
	return fmt.Sprintf(`\u%04x`, raw[0]) + raw[1:]
}

// TestNameFastPathAgrees: the member-name fast paths of the decoder
// (nextName, nextMember) give what their slow path gives. Every seed of
// the union and JSON-RPC corpora, and the invalid corpus, is decoded as
// written and with its member names forced onto the slow path (the first
// byte of each name escaped; white space before each ':'): the value, or
// the kind of the error, is the same.
func TestNameFastPathAgrees(t *testing.T) {
	type text struct {
		union string
		in    []byte
	}
	var texts []text
	files, err := filepath.Glob(filepath.Join("..", "testdata", "fuzz", "unions", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no seeds: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		union, _, _ := strings.Cut(filepath.Base(f), ".")
		texts = append(texts, text{union, b})
	}
	for _, glob := range []string{"jsonrpc/*.json"} {
		files, _ := filepath.Glob(filepath.Join("..", "testdata", "fuzz", glob))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			texts = append(texts, text{"JSONRPCMessage", b})
		}
	}
	invalid, err := filepath.Glob(filepath.Join(invalidDir, "*.txt"))
	if err != nil || len(invalid) == 0 {
		t.Fatalf("no invalid cases: %v", err)
	}
	for _, f := range invalid {
		c, err := readInvalidCase(f)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, text{c.typeName, c.body})
	}
	same := func(raw string) string { return raw }
	slow := []func([]byte) []byte{
		func(b []byte) []byte { return rewriteNames(b, escapeFirst, "") },
		func(b []byte) []byte { return rewriteNames(b, same, " ") },
	}
	compared := 0
	for _, tx := range texts {
		want := NewValue(tx.union)
		if want == nil {
			t.Fatalf("no type %s", tx.union)
		}
		errWant := Unmarshal(tx.in, want)
		for i, f := range slow {
			in := f(tx.in)
			if bytes.Equal(in, tx.in) {
				continue
			}
			got := NewValue(tx.union)
			errGot := Unmarshal(in, got)
			dw, _ := AsDecodeError(errWant)
			dg, _ := AsDecodeError(errGot)
			switch {
			case (errWant == nil) != (errGot == nil):
				t.Errorf("%s, rewrite %d: %s gives %v, %s gives %v", tx.union, i, tx.in, errWant, in, errGot)
			case errWant != nil && (dw == nil || dg == nil || dw.Kind != dg.Kind || dw.Path != dg.Path):
				t.Errorf("%s, rewrite %d: %s gives %v, %s gives %v", tx.union, i, tx.in, errWant, in, errGot)
			case errWant == nil:
				// Raw members keep their text, rewritten too: compare
				// the encodings as JSON values.
				a, errA := Marshal(want)
				b, errB := Marshal(got)
				if errA != nil || errB != nil || !bytes.Equal(jsonCanon(t, a), jsonCanon(t, b)) {
					t.Errorf("%s, rewrite %d: %s and %s decode differently:\n%s\n%s", tx.union, i, tx.in, in, a, b)
				}
			}
			compared++
		}
	}
	t.Logf("%d texts, %d comparisons", len(texts), compared)
}
