package validate

import (
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// agree checks one schema against one instance the way the server does:
// the fast path (Input.ValidRaw) may only accept what the slow path
// (Parse and Check: the number limits, the case variants, then the
// general validator, or the flat one for a schema of types alone)
// accepts. It reports both verdicts.
func agree(t *testing.T, in *Input, sc, inst string) (raw, slow bool) {
	t.Helper()
	lim := DefaultLimits()
	raw = in.ValidRaw([]byte(inst), lim)
	problem, err := checkArgs(context.Background(), in, []byte(inst), lim)
	slow = err == nil && problem == ""
	if raw && !slow {
		t.Errorf("schema %s, instance %s: the fast path accepts, the slow path refuses (%q, %v)", sc, inst, problem, err)
	}
	return raw, slow
}

// TestFlatChecksDiffer is the differential test of the fast path with
// value keywords: generated flat schemas (each member a type, and for a
// string an enum, lengths and a pattern, for a number the bounds, drawn
// at random) against generated instances. The fast path never accepts
// what the slow path refuses, and accepts every instance the slow path
// accepts that is plain (declared members, plain literals, no number a
// bound compares equal to in float64 alone).
func TestFlatChecksDiffer(t *testing.T) {
	rnd := rand.New(rand.NewPCG(24, 1))
	pick := func(list ...string) string { return list[rnd.IntN(len(list))] }
	names := []string{"a", "b", "c", "d"}
	type lit struct {
		text  string
		plain bool
	}
	strs := []lit{{`""`, true}, {`"a"`, true}, {`"ab"`, true}, {`"abc"`, true}, {`"é"`, true}, {`"b1"`, true}, {`"ABC-12"`, true},
		{`"a\u0062"`, false}, {`"\n"`, false}}
	nums := []lit{{`0`, true}, {`1`, true}, {`-1`, true}, {`7`, true}, {`10`, true}, {`-3`, true}, {`2.5`, false}, {`100`, false},
		{`1.0`, false}, {`1e2`, false}, {`2.4999999999999`, false}, {`9007199254740993`, false}, {`-0`, false}, {`0.5`, false}}
	others := []lit{{`true`, true}, {`false`, true}, {`null`, false}, {`[]`, false}, {`{}`, false}}
	accepted, fast := 0, 0
	for range 400 {
		props := map[string]string{}
		var members []string
		for _, n := range names[:1+rnd.IntN(len(names))] {
			typ := pick("string", "string", "integer", "number", "boolean")
			props[n] = typ
			kw := []string{`"type":"` + typ + `"`}
			switch typ {
			case "string":
				if rnd.IntN(3) == 0 {
					kw = append(kw, `"enum":[`+strings.Join([]string{`"a"`, `"ab"`, `"é"`, `"ABC-12"`}[:1+rnd.IntN(4)], ",")+`]`)
				}
				if rnd.IntN(3) == 0 {
					kw = append(kw, `"minLength":`+strconv.Itoa(rnd.IntN(3)))
				}
				if rnd.IntN(3) == 0 {
					kw = append(kw, `"maxLength":`+strconv.Itoa(rnd.IntN(4)))
				}
				if rnd.IntN(3) == 0 {
					kw = append(kw, `"pattern":`+strconv.Quote(pick("^a", "b$", "[0-9]", "^[a-c]*$", "é", "^[A-Z]+-[0-9]+$")))
				}
			case "integer", "number":
				for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
					if rnd.IntN(3) == 0 {
						kw = append(kw, `"`+k+`":`+pick("0", "1", "-1", "2.5", "10", "1e2", "0.5", "9007199254740992"))
					}
				}
			}
			if rnd.IntN(4) == 0 {
				kw = append(kw, `"description":"d"`)
			}
			members = append(members, strconv.Quote(n)+":{"+strings.Join(kw, ",")+"}")
		}
		var req []string
		for n := range props {
			if rnd.IntN(2) == 0 {
				req = append(req, strconv.Quote(n))
			}
		}
		sc := `{"type":"object","properties":{` + strings.Join(members, ",") + `},"required":[` + strings.Join(req, ",") + `]`
		if rnd.IntN(2) == 0 {
			sc += `,"additionalProperties":false`
		}
		sc += "}"
		in := inputFor(t, sc)
		if in.flat == nil {
			t.Fatalf("schema %s should be flat", sc)
		}
		for range 40 {
			var parts []string
			plain := true
			for _, n := range names {
				if rnd.IntN(3) == 0 {
					continue
				}
				pool := append(append(append([]lit{}, strs...), nums...), others...)
				switch props[n] {
				case "string":
					pool = strs
				case "integer", "number":
					pool = nums
				}
				if rnd.IntN(6) == 0 {
					pool = append(append(append([]lit{}, strs...), nums...), others...) // a wrong type, sometimes
				}
				l := pool[rnd.IntN(len(pool))]
				plain = plain && l.plain
				if _, ok := props[n]; !ok {
					plain = false
				}
				name := n
				if rnd.IntN(15) == 0 {
					name, plain = strings.ToUpper(n), false // a case variant
				}
				parts = append(parts, strconv.Quote(name)+":"+l.text)
			}
			inst := "{" + strings.Join(parts, ",") + "}"
			raw, slow := agree(t, in, sc, inst)
			if slow {
				accepted++
			}
			if raw {
				fast++
			}
			if slow && plain && !raw {
				t.Errorf("schema %s, instance %s: the fast path declines a plain valid instance", sc, inst)
			}
		}
	}
	t.Logf("%d instances accepted, %d of them by the fast path", accepted, fast)
	if fast == 0 || fast*2 < accepted {
		t.Errorf("the fast path decided %d of %d accepted instances", fast, accepted)
	}
}

// TestFlatChecksExistingCases runs the differential check over every
// JSON literal of the argument tests of this package and of package
// server (the files named below): each one that compiles as a flat
// schema against each one, as an instance.
func TestFlatChecksExistingCases(t *testing.T) {
	var files []string
	for _, g := range []string{"*_test.go", "../../arg*_test.go", "../../valuecheck_test.go", "../../nullargs_test.go", "../../tools_test.go"} {
		m, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	var lits []string
	seen := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if b, ok := n.(*ast.BasicLit); ok && b.Kind == token.STRING {
				if s, err := strconv.Unquote(b.Value); err == nil && json.Valid([]byte(s)) && !seen[s] && len(s) < 4096 {
					seen[s] = true
					lits = append(lits, s)
				}
			}
			return true
		})
	}
	var cands []string
	for _, l := range lits {
		cands = append(cands, l)
		var tool struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if json.Unmarshal([]byte(l), &tool) == nil && tool.InputSchema != nil {
			cands = append(cands, string(tool.InputSchema)) // a tool's definition
		}
	}
	schemas := 0
	for _, sc := range cands {
		if !strings.HasPrefix(strings.TrimSpace(sc), "{") || compileFlat([]byte(sc)) == nil {
			continue
		}
		in, err := CompileInput([]byte(sc), defaultOptions())
		if err != nil {
			continue // a schema the tests show refused
		}
		schemas++
		for _, inst := range lits {
			agree(t, in, sc, inst)
		}
	}
	t.Logf("%d literals from %d files, %d of them flat schemas", len(lits), len(files), schemas)
	if schemas < 10 {
		t.Errorf("only %d flat schemas found: %s", schemas, fmt.Sprint(files))
	}
}

// BenchmarkFlatChecks is the arguments' check of a tools/call as the
// server does it (ValidRaw, else Parse and Check) for a flat schema with
// an enum, a pattern, lengths and bounds: "fast" as compiled, "general"
// with the flat path taken away (what such a schema cost before the fast
// path judged value keywords).
func BenchmarkFlatChecks(b *testing.B) {
	const sc = `{"type":"object","properties":{"city":{"type":"string","minLength":1,"maxLength":64,"pattern":"^[A-Za-z ]+$"},` +
		`"units":{"type":"string","enum":["metric","imperial"]},"days":{"type":"integer","minimum":1,"maximum":14}},"required":["city"],"additionalProperties":false}`
	args := []byte(`{"city":"Lisbon","units":"metric","days":3}`)
	for _, mode := range []string{"fast", "general"} {
		b.Run(mode, func(b *testing.B) {
			in := inputFor(b, sc)
			if mode == "general" {
				in.flat = nil
			} else if !in.ValidRaw(args, DefaultLimits()) {
				b.Fatal("the fast path declines")
			}
			b.ReportAllocs()
			for b.Loop() {
				if in.ValidRaw(args, DefaultLimits()) {
					continue
				}
				if p, err := checkArgs(context.Background(), in, args, DefaultLimits()); p != "" || err != nil {
					b.Fatal(p, err)
				}
			}
		})
	}
}
