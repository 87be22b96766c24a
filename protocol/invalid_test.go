package protocol

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// invalidDir holds the corpus of invalid messages: NN-short-name.txt is
// "type: <TypeName>\n---\n" followed by the raw body, and NN-short-name.golden
// is the expected "kind: <kind>\nerror: <err.Error()>\n".
const invalidDir = "../testdata/invalid"

// minInvalidCases is the smallest corpus the test accepts.
const minInvalidCases = 48

var invalidCaseName = regexp.MustCompile(`^[0-9]{2}-[a-z0-9]+(-[a-z0-9]+)*$`)

// invalidCase is one parsed .txt file of the corpus.
type invalidCase struct {
	name     string // file name without extension
	typeName string
	body     []byte
}

func readInvalidCase(path string) (invalidCase, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return invalidCase{}, err
	}
	c := invalidCase{name: strings.TrimSuffix(filepath.Base(path), ".txt")}
	header, rest, ok := bytes.Cut(data, []byte("\n"))
	if !ok || !bytes.HasPrefix(header, []byte("type: ")) {
		return c, fmt.Errorf("%s: first line must be \"type: <TypeName>\"", path)
	}
	c.typeName = string(bytes.TrimPrefix(header, []byte("type: ")))
	sep, body, ok := bytes.Cut(rest, []byte("\n"))
	if !ok || string(sep) != "---" {
		return c, fmt.Errorf("%s: second line must be \"---\"", path)
	}
	c.body = body
	return c, nil
}

// decodeInvalid decodes c and renders the error as a golden file, turning a
// panic into a test failure of this case only.
func decodeInvalid(t *testing.T, c invalidCase) (got string, ok bool) {
	t.Helper()
	v := NewValue(c.typeName)
	if v == nil {
		t.Errorf("unknown type %q", c.typeName)
		return "", false
	}
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("Unmarshal panicked: %v", r)
				ok = false
			}
		}()
		err = Unmarshal(c.body, v)
		ok = true
	}()
	if !ok {
		return "", false
	}
	if err == nil {
		t.Errorf("Unmarshal into %s accepted an invalid message", c.typeName)
		return "", false
	}
	var de *DecodeError
	if !errors.As(err, &de) {
		t.Errorf("error %v (%T) is not a *DecodeError", err, err)
		return "", false
	}
	if de.Offset < -1 || de.Offset > len(c.body) {
		t.Errorf("offset %d outside the input (length %d) for %v", de.Offset, len(c.body), err)
	}
	return fmt.Sprintf("kind: %s\nerror: %s\n", de.Kind, err.Error()), true
}

// TestInvalidMessages decodes every invalid message of testdata/invalid into
// the type its header names and compares the *DecodeError with the golden
// file. Run with -update to rewrite the goldens .
func TestInvalidMessages(t *testing.T) {
	txts, err := filepath.Glob(filepath.Join(invalidDir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(txts)
	if len(txts) < minInvalidCases {
		t.Errorf("found %d invalid messages in %s, want at least %d", len(txts), invalidDir, minInvalidCases)
	}

	goldens, err := filepath.Glob(filepath.Join(invalidDir, "*.golden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range goldens {
		if _, err := os.Stat(strings.TrimSuffix(g, ".golden") + ".txt"); err != nil {
			t.Errorf("orphan golden %s: no matching .txt", g)
		}
	}

	numbers := map[string]string{}
	for _, path := range txts {
		c, err := readInvalidCase(path)
		if err != nil {
			t.Error(err)
			continue
		}
		if !invalidCaseName.MatchString(c.name) {
			t.Errorf("%s: name must be NN-short-name in lower case", path)
		}
		if prev, dup := numbers[c.name[:2]]; dup {
			t.Errorf("%s and %s share the number %s", prev, c.name, c.name[:2])
		}
		numbers[c.name[:2]] = c.name

		t.Run(c.name, func(t *testing.T) {
			got, ok := decodeInvalid(t, c)
			if !ok {
				return
			}
			golden := filepath.Join(invalidDir, c.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./protocol -run TestInvalidMessages -update)", err)
			}
			if got != string(want) {
				t.Errorf("%s into %s:\ngot:\n%swant:\n%s", c.name, c.typeName, got, want)
			}
		})
	}
}
