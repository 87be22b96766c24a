package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/internal/validate"
)

// The hostile-input corpus: requests an attacker (or a broken client) may
// send, each run through both transports, ServeHTTP and ServeStdio, on one
// Server that must answer every one with the exact status, error code and
// id echo, never run a handler it should not, and still serve the next
// normal request.
//
// Most cases are data, in testdata/hostile/*.txt (the format is described
// in testdata/hostile/README.md); inputs too large for a file (100,000
// nesting levels, 10,000-digit ids, 10 MiB lines) are made by
// generatedHostileCases. Cases that only make sense on one transport
// (stdio framing, schemas refused by AddTool) have their own tests below.

// TestHostileCorpus runs every corpus case on each of its transports.
func TestHostileCorpus(t *testing.T) {
	cases := append(LoadHostileCorpus(t), GeneratedHostileCases()...)
	f := NewHostileFixture(t)
	srv := httptest.NewServer(f.H)
	defer srv.Close()
	perFile := map[string]int{}
	for _, c := range cases {
		if !c.RunsOn(legacy.ErasModern) {
			continue
		}
		perFile[c.File]++
		if c.Http {
			t.Run("http/"+c.Name, func(t *testing.T) { f.RunHostileHTTP(t, srv, c) })
		}
		if c.Stdio {
			t.Run("stdio/"+c.Name, func(t *testing.T) { f.RunHostileStdio(t, c) })
		}
	}
	if len(cases) < 120 {
		t.Errorf("the corpus has %d cases, want at least 120", len(cases))
	}
	t.Logf("%d cases: %v", len(cases), perFile)
}

// TestHostileSchemas registers hostile tool schemas: remote references are
// refused at AddTool without a single fetch (R-SCHEMA-05), pathological
// composition is refused (R-SCHEMA-08), and what is accepted validates
// fast.
func TestHostileSchemas(t *testing.T) {
	var hits atomic.Int64
	remote := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/schema+json")
		_, _ = io.WriteString(w, `{"type":"string"}`)
	}))
	defer remote.Close()
	nested := func(kw string, n int) string {
		return `{"type":"object"` + strings.Repeat(`,"`+kw+`":[{"type":"object"`, n) + strings.Repeat(`}]`, n) + `}`
	}
	// chain is n definitions, each an anyOf of two references to the
	// next: 2^n paths for an instance that fails at the end.
	chain := func(n int) string {
		defs := make([]string, 0, n+1)
		for i := range n {
			defs = append(defs, fmt.Sprintf(`"d%d":{"anyOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]}`, i, i+1, i+1))
		}
		defs = append(defs, fmt.Sprintf(`"d%d":{"type":"string"}`, n))
		return `{"type":"object","properties":{"x":{"$ref":"#/$defs/d0"}},"$defs":{` + strings.Join(defs, ",") + `}}`
	}
	wide := `{"type":"object","anyOf":[` + strings.TrimSuffix(strings.Repeat(`{"type":"object"},`, 20000), ",") + `]}`
	cases := []struct {
		name   string
		rids   []string
		schema string // ${REMOTE} is the counting server
		refuse bool
		args   M // for an accepted schema: a call that must be answered fast
		bug    string
	}{
		{name: "remote $ref", rids: []string{"R-SCHEMA-05"}, schema: `{"type":"object","properties":{"a":{"$ref":"${REMOTE}/a.json"}}}`, refuse: true},
		{name: "remote $ref with a fragment", rids: []string{"R-SCHEMA-05"}, schema: `{"type":"object","properties":{"a":{"$ref":"${REMOTE}/a.json#/definitions/x"}}}`, refuse: true},
		{name: "remote $ref at the root", rids: []string{"R-SCHEMA-05"}, schema: `{"type":"object","$ref":"${REMOTE}/root.json"}`, refuse: true},
		{name: "remote $schema", rids: []string{"R-SCHEMA-05"}, schema: `{"$schema":"${REMOTE}/meta.json","type":"object"}`, refuse: true},
		{name: "remote $id and a relative $ref", rids: []string{"R-SCHEMA-05"}, schema: `{"$id":"${REMOTE}/base/","type":"object","properties":{"a":{"$ref":"other.json"}}}`, refuse: true},
		{name: "remote $dynamicRef", rids: []string{"R-SCHEMA-05"}, schema: `{"type":"object","properties":{"a":{"$dynamicRef":"${REMOTE}/d.json#x"}}}`, refuse: true},
		{name: "remote $ref inside allOf", rids: []string{"R-SCHEMA-05"}, schema: `{"type":"object","allOf":[{"$ref":"${REMOTE}/x.json"}]}`, refuse: true},
		{name: "file $ref", rids: []string{"R-SCHEMA-05"}, schema: `{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}}`, refuse: true},
		{name: "urn $ref", rids: []string{"R-SCHEMA-05"}, schema: `{"type":"object","properties":{"a":{"$ref":"urn:example:evil"}}}`, refuse: true},
		{name: "remote $ref in unused $defs is never fetched", rids: []string{"R-SCHEMA-05"}, schema: `{"type":"object","$defs":{"u":{"$ref":"${REMOTE}/u.json"}}}`, args: M{}},
		{name: "allOf nested 40 deep", rids: []string{"R-SCHEMA-08"}, schema: nested("allOf", 40), refuse: true},
		{name: "anyOf nested 40 deep", rids: []string{"R-SCHEMA-08"}, schema: nested("anyOf", 40), refuse: true},
		{name: "oneOf nested 40 deep", rids: []string{"R-SCHEMA-08"}, schema: nested("oneOf", 40), refuse: true},
		{name: "anyOf of 20,000 branches", rids: []string{"R-SCHEMA-08"}, schema: wide, refuse: true},
		{name: "anyOf chain of 30 references (2^30 paths)", rids: []string{"R-SCHEMA-08"}, schema: chain(30), refuse: true,
			bug: "tools.go compileSchema bounds nesting and document size but not the expansion through $ref: the schema is accepted, and validating a failing argument walks 2^30 paths (measured: 20 levels take 4.6 s, each level doubles)"},
		{name: "a $ref cycle is refused", rids: []string{"R-SCHEMA-08"}, schema: `{"type":"object","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"properties":{"x":{"$ref":"#/$defs/a"}}}`, refuse: true},
		{name: "a $ref to the root terminates", rids: []string{"R-SCHEMA-08"}, schema: `{"type":"object","properties":{"x":{"$ref":"#"}}}`, args: M{"x": M{"x": M{"x": M{"x": 1}}}}},
		{name: "a pattern Go cannot compile", rids: []string{"R-SCHEMA-01"}, schema: `{"type":"object","properties":{"s":{"type":"string","pattern":"(a)\\1"}}}`, refuse: true},
		{name: "x-mcp-header under anyOf", rids: []string{"R-HDR-10"}, schema: `{"type":"object","anyOf":[{"properties":{"r":{"type":"string","x-mcp-header":"R"}}}]}`, refuse: true},
		{name: "x-mcp-header with CR LF", rids: []string{"R-HDR-10"}, schema: `{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"R\r\nX-Evil: 1"}}}`, refuse: true},
	}
	s := NewServer(t)
	h := Handler(s, streamhttp.Options{})
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			name := fmt.Sprintf("schema_%d", i)
			js := strings.ReplaceAll(c.schema, "${REMOTE}", remote.URL)
			var def protocol.Tool
			if err := protocol.Unmarshal([]byte(`{"name":"`+name+`","inputSchema":`+js+`}`), &def); err != nil {
				t.Fatalf("tool definition: %v", err)
			}
			err := s.AddTool(def, TextTool("ok"))
			k := &HostileCheck{}
			switch {
			case c.refuse && err == nil:
				k.Errorf("AddTool accepted the schema")
				s.RemoveTool(name)
			case !c.refuse && err != nil:
				k.Errorf("AddTool: %v", err)
			case !c.refuse:
				start := time.Now()
				w := Call(t, h, 1, protocol.MethodToolsCall, Params(M{"name": name, "arguments": c.args}))
				if w.Result == nil {
					k.Errorf("call: %s", w.Raw)
				}
				if d := time.Since(start); d > 10*time.Second {
					k.Errorf("validation took %v", d)
				}
			}
			if n := hits.Load(); n != 0 {
				k.Errorf("R-SCHEMA-05: the schema server was fetched %d times", n)
			}
			k.Done(t, &HostileCase{Name: c.name, Rids: c.rids, Bug: c.bug})
		})
	}
}

// TestHostileStdioStreams feeds whole stdio streams: framing, line limits
// and interleaving (R-STDIO-01..05). Every stream ends with a normal
// request that must be served.
func TestHostileStdioStreams(t *testing.T) {
	discover := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"server/discover","params":{"_meta":` + HostileMeta + `}}`
	}
	call := func(id, tool, args string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"_meta":` + HostileMeta + `,"name":"` + tool + `","arguments":` + args + `}}`
	}
	probe := string(HostileProbe("probe"))
	type msg = stdioMsg
	cases := []struct {
		name  string
		rids  []string
		opts  []any
		input string
		want  []msg // in any order, the probe included
		// wantBoth is the answer of an ErasBoth server when it differs: a
		// request without modern _meta and no session is T7's -32602
		// (docs/dual-era.md §1.8).
		wantBoth []msg
	}{
		{name: "a 10 MiB line is refused, the next line is served", rids: []string{"R-STDIO-01"},
			input: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"x":"` + strings.Repeat("x", 10<<20) + `"}}` + "\n" + probe + "\n",
			want:  []msg{{code: protocol.CodeInvalidRequestError}, {id: `"probe"`}}},
		{name: "a 10 MiB line of line-less garbage is refused", rids: []string{"R-STDIO-01"},
			input: strings.Repeat("\x00", 10<<20) + "\n" + probe + "\n",
			want:  []msg{{code: protocol.CodeInvalidRequestError}, {id: `"probe"`}}},
		{name: "a 10 MiB line at end of input without a line feed", rids: []string{"R-STDIO-01", "R-STDIO-05"},
			input: probe + "\n" + strings.Repeat("[", 10<<20),
			want:  []msg{{id: `"probe"`}, {code: protocol.CodeInvalidRequestError}}},
		{name: "a line over a small limit, then a line at it", rids: []string{"R-STDIO-01"}, opts: []any{server.WithMaxStdioLine(len(probe))},
			input: probe + " \n" + probe + "\n",
			want:  []msg{{code: protocol.CodeInvalidRequestError}, {id: `"probe"`}}},
		{name: "a partial line at end of input is served", rids: []string{"R-STDIO-01", "R-STDIO-05"},
			input: probe + "\n" + discover("2"),
			want:  []msg{{id: `"probe"`}, {id: "2"}}},
		{name: "a partial invalid line at end of input is answered", rids: []string{"R-STDIO-01", "R-BASE-07"},
			input: probe + "\n" + `{"jsonrpc":"2.0","id":2,"method":"server/disc`,
			want:  []msg{{id: `"probe"`}, {code: protocol.CodeParseError}}},
		{name: "CR LF line ends", rids: []string{"R-STDIO-01"},
			input: discover("1") + "\r\n" + call("2", "echo", `{"text":"a"}`) + "\r\n" + probe + "\r\n",
			want:  []msg{{id: "1"}, {id: "2", text: "a"}, {id: `"probe"`}}},
		{name: "a bare CR does not end a line", rids: []string{"R-STDIO-01", "R-BASE-07"},
			input: discover("1") + "\r" + discover("2") + "\n" + probe + "\n",
			want:  []msg{{code: protocol.CodeParseError}, {id: `"probe"`}}},
		{name: "CR CR LF leaves a CR: white space", rids: []string{"R-STDIO-01"},
			input: discover("1") + "\r\r\n" + probe + "\n",
			want:  []msg{{id: "1"}, {id: `"probe"`}}},
		{name: "blank and white-space lines are skipped", rids: []string{"R-STDIO-01"},
			input: "\n\r\n \t \n\n" + probe + "\n\n",
			want:  []msg{{id: `"probe"`}}},
		{name: "a raw U+2028 inside a string does not end a line", rids: []string{"R-STDIO-01", "R-BASE-03"},
			input: call("1", "echo", `{"text":"a`+"\u2028"+`b`+"\u2029"+`"}`) + "\n" + probe + "\n",
			want:  []msg{{id: "1", text: "a\u2028b\u2029"}, {id: `"probe"`}}},
		{name: "a NUL line, then the next", rids: []string{"R-STDIO-01", "R-BASE-07"},
			input: "\x00\n" + probe + "\n",
			want:  []msg{{code: protocol.CodeParseError}, {id: `"probe"`}}},
		{name: "a response from the client is refused", rids: []string{"R-BASE-11", "R-STDIO-03"},
			input: `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}` + "\n" + probe + "\n",
			want:  []msg{{code: protocol.CodeInvalidRequestError}, {id: `"probe"`}}},
		{name: "interleaved notifications and requests with the same id", rids: []string{"R-BASE-10", "R-STATE-02", "R-CANCEL-02"},
			input: call("1", "echo", `{"text":"first"}`) + "\n" +
				`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
				call("1", "echo", `{"text":"second"}`) + "\n" +
				`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}` + "\n" +
				`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}` + "\n" +
				call("1", "echo", `{"text":"third"}`) + "\n" +
				`{"jsonrpc":"2.0","method":"notifications/whatever","id":null}` + "\n" +
				probe + "\n",
			want: []msg{{id: "1", text: "first"}, {id: "1", text: "second"}, {id: "1", text: "third"}, {code: protocol.CodeInvalidRequestError}, {id: `"probe"`}}},
		{name: "a string id and an integer id that look alike are two requests", rids: []string{"R-BASE-04", "R-CANCEL-02"},
			input: call("1", "echo", `{"text":"int"}`) + "\n" + call(`"1"`, "echo", `{"text":"str"}`) + "\n" +
				`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"01"}}` + "\n" + probe + "\n",
			want: []msg{{id: "1", text: "int"}, {id: `"1"`, text: "str"}, {id: `"probe"`}}},
		{name: "a notification method sent as a request is answered", rids: []string{"R-BASE-10", "R-CANCEL-01"},
			input:    `{"jsonrpc":"2.0","id":5,"method":"notifications/cancelled","params":{"requestId":1}}` + "\n" + probe + "\n",
			want:     []msg{{id: "5", code: protocol.CodeMethodNotFoundError}, {id: `"probe"`}},
			wantBoth: []msg{{id: "5", code: protocol.CodeInvalidParamsError}, {id: `"probe"`}}},
		{name: "a cancellation with a smuggled id member is a request", rids: []string{"R-BASE-10", "R-CANCEL-01"},
			input:    `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1},"id":"c"}` + "\n" + probe + "\n",
			want:     []msg{{id: `"c"`, code: protocol.CodeMethodNotFoundError}, {id: `"probe"`}},
			wantBoth: []msg{{id: `"c"`, code: protocol.CodeInvalidParamsError}, {id: `"probe"`}}},
		{name: "a cancellation with duplicate members is not one", rids: []string{"R-CANCEL-02", "R-BASE-07"},
			input: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"requestId":2}}` + "\n" + probe + "\n",
			want:  []msg{{code: protocol.CodeInvalidRequestError}, {id: `"probe"`}}},
	}
	for _, mode := range []legacy.Eras{legacy.ErasModern, legacy.ErasBoth} {
		f := NewHostileFixture(t, Eras(mode))
		for _, c := range cases {
			runStdioStream(t, f, mode, c.name, c.rids, c.opts, c.input, c.want, c.wantBoth)
		}
	}
}

// stdioMsg is one message a stdio stream must answer.
type stdioMsg struct {
	id   string // raw id, "" for none
	code int64  // 0 for a result
	text string // first text block, when set
}

// runStdioStream runs one TestHostileStdioStreams case on f's mode (or a
// server of opts and mode).
func runStdioStream(t *testing.T, f *HostileFixture, mode legacy.Eras, name string, rids []string, opts []any, input string, wantModern, wantBoth []stdioMsg) {
	want := wantModern
	if mode == legacy.ErasBoth && wantBoth != nil {
		want = wantBoth
	}
	c := struct {
		rids  []string
		input string
		want  []stdioMsg
	}{rids, input, want}
	t.Run(mode.String()+"/"+name, func(t *testing.T) {
		s := f.Server
		if opts != nil {
			s = NewServer(t, append(opts, Eras(mode))...)
		}
		var out bytes.Buffer
		start := time.Now()
		if err := ServeStdio(context.Background(), s, strings.NewReader(c.input), &out); err != nil {
			t.Fatalf("ServeStdio: %v", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("took %v", d)
		}
		var got []*Wire
		for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if l != "" {
				got = append(got, CheckStdioLine(t, l))
			}
		}
		used := make([]bool, len(got))
		for _, w := range c.want {
			found := false
			for i, g := range got {
				if used[i] || g.Id() != w.id || g.Code() != w.code || (w.text != "" && g.Text(t, 0) != w.text) {
					continue
				}
				used[i], found = true, true
				break
			}
			if !found {
				t.Errorf("[%s] no message with id %q, code %d, text %q", strings.Join(c.rids, " "), w.id, w.code, w.text)
			}
		}
		for i, g := range got {
			if !used[i] {
				t.Errorf("[%s] unexpected message %s", strings.Join(c.rids, " "), HostileShort(g.Raw))
			}
		}
	})
}

// TestHostileStdioOneStream sends the whole corpus down one stdio stream
// (an io.Pipe), each hostile line followed by a normal request: every
// normal request is answered, and the hostile ones get exactly the
// answers the corpus expects.
func TestHostileStdioOneStream(t *testing.T) {
	// Give the slowest request (under -race) time to finish at end of
	// input.
	f := NewHostileFixture(t, server.WithShutdownTimeout(2*time.Minute))
	var cases []*HostileCase
	for _, c := range append(LoadHostileCorpus(t), GeneratedHostileCases()...) {
		// A legacy initialize would open the stream's session and change
		// the answers to the lines after it: those run on their own
		// streams (TestHostileCorpus*).
		opens := f.Eras() != legacy.ErasModern && bytes.Contains(c.Body, []byte(`"method":"initialize"`))
		if c.Stdio && c.OnMode(f.Eras()).Bug == "" && c.RunsOn(f.Eras()) && c.Before == nil && !opens {
			cases = append(cases, c)
		}
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		err := ServeStdio(context.Background(), f.Server, inR, outW)
		outW.Close()
		served <- err
	}()
	type key struct {
		id   string
		code int64
	}
	got := map[key]int{}
	probes := map[string]bool{}
	answered := make(chan struct{}, 1)
	read := make(chan error, 1)
	go func() {
		br := bufio.NewReaderSize(outR, 1<<20)
		for {
			line, err := br.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				var m struct {
					ID    json.RawMessage `json:"id"`
					Error *WireError      `json:"error"`
				}
				if json.Unmarshal(line, &m) != nil {
					read <- fmt.Errorf("not JSON: %s", HostileShort(line))
					return
				}
				if id := string(m.ID); strings.HasPrefix(id, `"probe-`) {
					probes[id] = true
					answered <- struct{}{}
				} else {
					k := key{id: id}
					if m.Error != nil {
						k.code = m.Error.Code
					}
					got[k]++
				}
			}
			if err != nil {
				read <- nil
				return
			}
		}
	}()
	want := map[key]int{}
	for i, c := range cases {
		if i > 0 {
			// One case at a time (the stream stays the same): the server
			// answers requests over WithMaxConcurrent at once with
			// CodeRateLimited.
			select {
			case <-answered:
			case <-time.After(time.Minute):
				t.Fatalf("normal request %d (after %s) was not answered", i-1, cases[i-1].Label())
			}
		}
		w := c.StdioWantOn(f.Eras())
		if w.Kind != "none" {
			want[key{id: w.Id, code: w.Code}]++
		}
		body := f.HostileBody(c)
		if _, err := inW.Write(append(body, '\n')); err != nil {
			t.Fatal(err)
		}
		if _, err := inW.Write(append(HostileProbe(fmt.Sprintf("probe-%d", i)), '\n')); err != nil {
			t.Fatal(err)
		}
	}
	inW.Close()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("ServeStdio: %v", err)
		}
	case <-time.After(3 * time.Minute):
		t.Fatal("ServeStdio did not return")
	}
	if err := <-read; err != nil {
		t.Fatal(err)
	}
	for i := range cases {
		if !probes[fmt.Sprintf(`"probe-%d"`, i)] {
			t.Errorf("normal request %d (after %s) was not answered", i, cases[i].Label())
		}
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("id %q code %d: %d answers, want %d", k.id, k.code, got[k], n)
		}
	}
	for k, n := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("id %q code %d: %d unexpected answers", k.id, k.code, n)
		}
	}
	t.Logf("%d hostile lines and %d normal ones on one stream", len(cases), len(cases))
}

// TestHostileDecimal checks the exact number comparison of Mcp-Param-*
// headers (R-HDR-08).
func TestHostileDecimal(t *testing.T) {
	same := [][]string{
		{"42", "42.0", "4.2e1", "4.2E+1", "420e-1", "+42", "0042", "42.", "42.000e0"},
		{"0", "-0", "0.0", "0e99", "-0.000", ".0", "0."},
		{"9007199254740993", "9007199254740993.0", "9.007199254740993e15"},
		{"1e400", "10e399", "0.1e401"},
		{"-1.5", "-15e-1", "-0.15E1"},
	}
	for i, group := range same {
		for _, a := range group {
			da, ok := validate.ParseDecimal(a)
			if !ok {
				t.Errorf("%q is not a number", a)
			}
			for _, b := range group {
				if db, _ := validate.ParseDecimal(b); da != db {
					t.Errorf("%s and %s differ", a, b)
				}
			}
			for j, other := range same {
				if db, _ := validate.ParseDecimal(other[0]); j != i && da == db {
					t.Errorf("%s and %s are equal", a, other[0])
				}
			}
		}
	}
	for _, bad := range []string{"", ".", "+", "-", "e1", "1e", "1e+", "0x2A", "0x2Ap0", "Inf", "NaN", "4_2", "42 ", " 42", "1e99999999999", "1..2", "--1", "4e2.5", "٤٢"} {
		if _, ok := validate.ParseDecimal(bad); ok {
			t.Errorf("%q is a number", bad)
		}
	}
	for _, c := range []struct {
		body, header string
		equal        bool
	}{
		{"42", "42.0", true},
		{"42", "4.2e1", true},
		{"-0", "0", true},
		{"9007199254740993", "9007199254740993", true},
		{"9007199254740993", "9007199254740992", false}, // the same float64
		{"42", "0x2Ap0", false},
		{"1e400", "1e400", false}, // beyond float64: refused
		{"-1e400", "-1e400", false},
	} {
		if got := server.ParamEqual(json.Number(c.body), c.header); got != c.equal {
			t.Errorf("body %s, header %s: equal %v, want %v", c.body, c.header, got, c.equal)
		}
	}
}

// TestHostileCorpusFormat checks that mistakes in a corpus file are
// reported with their place, not run as a case.
func TestHostileCorpusFormat(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"body: {}\n", "f.txt:1: line outside a case"},
		{"=== a\nrids: R-X\nbody: {}\n", "no want line"},
		{"=== a\nrids: R-X\nwant: 200 result\n", "no body"},
		{"=== a\nbody: {}\nwant: 200 result\n", "no rids line"},
		{"=== a\nrids: R-X\nbody: {}\nwant: 200 maybe\n", "f.txt:4: want: want a JSON-RPC code"},
		{"=== a\nrids: R-X\nbody: {}\nwant: 200 result\nbodge: 1\n", `f.txt:5: unknown key "bodge"`},
		{"=== a\nrids: R-X\nbody: {}\nwant: 200 result\non: smoke\n", `unknown transport "smoke"`},
		{"=== a\nrids: R-X\nbody: {}\nwant: 200 result\nid: abc\n", "is not JSON"},
		{"=== a\nrids: R-X\nbodyx: \\xZZ\nwant: 200 result\n", "bad \\x escape"},
		{"=== a\nrids: R-X\nbodyx: {\"a\":\"\\x0a\"}\nwant: 200 result\n", "cannot go over stdio"},
		{"=== a\nrids: R-X\nbody: {}\nwant: 400 transport\non: http\n", "needs a raw request"},
		{"=== a\nrids: R-X\nbody: {}\nwant: 200 result\nera: future\n", `unknown era "future"`},
		{"=== a\nrids: R-X\nbody: {}\nwant: 200 result\nwant-legacy: 400 -32600\n", "which the case does not run on"},
		{"=== a\nrids: R-X\nbody: {}\nwant: 200 result\nera: both\nwant-both: 200 maybe\n", "f.txt:6: want-both: want a JSON-RPC code"},
		{"=== a\nrids: R-X\nbody: {}\nwant: 200 result\ndata: [1]\n", "want a JSON object"},
		{"=== a\nrids: R-X\nbody: {}\nwant: 200 result\nstdio-id-both: 1\n", "stdio-id-both before stdio-both"},
		{"=== a\nrids: R-X\nbody: {\"x\":\"${SID}\"}\nwant: 200 result\n", "a session placeholder needs on: http"},
	} {
		_, err := ParseHostileCorpus("f.txt", c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.text, err, c.want)
		}
	}
	cases, err := ParseHostileCorpus("f.txt", "# comment\n\n=== a\nrids: R-X\non: http\nbodyx: \\x00\\\\u0041\nheaderx: X-A: b\\r\\n\nwant: 400 -32700\nstdio: none\n")
	if err != nil || len(cases) != 1 {
		t.Fatalf("%v %v", cases, err)
	}
	c := cases[0]
	if string(c.Body) != "\x00\\\\u0041" || c.Headers[0].Value != "b\r\n" || c.Want.Code != -32700 || c.StdioWant.Kind != "none" || c.Stdio {
		t.Errorf("parsed %+v", c)
	}
	cases, err = ParseHostileCorpus("f.txt", "=== a\nrids: R-X\non: http\nera: modern both legacy\nbody: {}\nwant-both: 400 -32600\nmsg-both: m\nwant: 404 -32601\nid: 1\nmsg: x\nstdio-legacy: result\nbug-both: b\n")
	if err != nil || len(cases) != 1 {
		t.Fatalf("%v %v", cases, err)
	}
	c = cases[0]
	if b, m := c.WantOn(legacy.ErasBoth), c.WantOn(legacy.ErasModern); b.Status != 400 || b.Code != -32600 || b.Id != "1" || b.Msg != "m" || m.Code != -32601 || m.Msg != "x" {
		t.Errorf("want-both %+v, want %+v", b, m)
	}
	if l := c.WantOn(legacy.ErasLegacy); l.Code != -32601 || c.StdioWantOn(legacy.ErasLegacy).Kind != "result" || c.OnMode(legacy.ErasBoth).Bug != "b" || c.OnMode(legacy.ErasLegacy).Bug != "" {
		t.Errorf("legacy %+v, stdio %+v", l, c.StdioWantOn(legacy.ErasLegacy))
	}
}
