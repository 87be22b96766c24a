package protocol

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// specDir returns $MCP_SPEC_DIR or skips the test with instructions.
func specDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("MCP_SPEC_DIR")
	if dir == "" {
		t.Skip("MCP_SPEC_DIR is not set: point it at a checkout laid out like the upstream specification repository, e.g. MCP_SPEC_DIR=../shared/mcp-spec")
	}
	return dir
}

// expectation is one line of testdata/examples-expectations.txt.
type expectation struct {
	file, outcome, detail, reason string
}

// loadExpectations reads the examples that are looser than the schema,
// each with the exact error expected and the reason.
func loadExpectations(t *testing.T) map[string]expectation {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "examples-expectations.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]expectation{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, " | ", 4)
		if len(parts) != 4 {
			t.Fatalf("bad expectation line %q: want FILE | OUTCOME | DETAIL | REASON", line)
		}
		out[parts[0]] = expectation{parts[0], parts[1], parts[2], parts[3]}
	}
	return out
}

// semantic decodes JSON into plain Go values for comparison.
func semantic(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("invalid JSON %s: %v", b, err)
	}
	return v
}

// TestSpecExamplesRoundTrip decodes each of the specification's examples
// into the type it is named after and re-encodes it to semantically equal
// JSON. The examples that are looser than the schema are listed, with the
// exact error and the reason, in testdata/examples-expectations.txt; an
// entry that no longer applies fails the test too.
func TestSpecExamplesRoundTrip(t *testing.T) {
	root := filepath.Join(specDir(t), "schema", Revision, "examples")
	files, err := filepath.Glob(filepath.Join(root, "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 129 {
		t.Fatalf("found %d examples under %s, want 129", len(files), root)
	}
	sort.Strings(files)
	exp := loadExpectations(t)
	used := map[string]bool{}
	for _, file := range files {
		rel, _ := filepath.Rel(root, file)
		rel = filepath.ToSlash(rel)
		typeName := filepath.Base(filepath.Dir(file))
		t.Run(rel, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			v := NewValue(typeName)
			if v == nil {
				t.Fatalf("no Go type named %s", typeName)
			}
			err = Unmarshal(data, v)
			e, listed := exp[rel]
			if listed {
				used[rel] = true
			}
			switch {
			case listed && e.outcome == "decode-error":
				if err == nil {
					t.Fatalf("decoded, but the expectations file says it fails with %q (%s)", e.detail, e.reason)
				}
				if err.Error() != e.detail {
					t.Fatalf("error %q, want %q", err, e.detail)
				}
				return
			case err != nil:
				t.Fatalf("decode into %s: %v", typeName, err)
			}
			out, err := Marshal(v)
			if err != nil {
				t.Fatalf("encode %s: %v", typeName, err)
			}
			if got, want := semantic(t, out), semantic(t, data); !reflect.DeepEqual(got, want) {
				t.Fatalf("round trip differs:\n got %s\nwant %s", out, data)
			}
			// encoding/json goes through the same codec.
			v2 := NewValue(typeName)
			if err := json.Unmarshal(data, v2); err != nil {
				t.Fatalf("encoding/json decode: %v", err)
			}
			out2, err := json.Marshal(v2)
			if err != nil {
				t.Fatalf("encoding/json encode: %v", err)
			}
			if !reflect.DeepEqual(semantic(t, out2), semantic(t, data)) {
				t.Fatalf("encoding/json round trip differs:\n got %s\nwant %s", out2, data)
			}
			if listed && e.outcome == "roundtrip" {
				if !strings.Contains(string(out), e.detail) {
					t.Fatalf("re-encoded %s does not contain %q, which the expectations file says is kept (%s)", out, e.detail, e.reason)
				}
			}
		})
	}
	for k := range exp {
		if !used[k] {
			t.Errorf("expectation for %s matches no example", k)
		}
	}
}
