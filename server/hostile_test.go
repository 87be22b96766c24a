package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
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

// hostileWant is what the server must answer to one hostile request.
type hostileWant struct {
	status  int    // HTTP status (HTTP only)
	kind    string // "error", "result", "none" (no message: 202 on HTTP) or "transport" (net/http answers, raw HTTP only)
	code    int64  // JSON-RPC error code when kind is "error"
	id      string // raw JSON of the echoed id; "" for no id
	text    *string
	textLen int // length of the first text block, when > 0
	isError *bool
	rtype   string // resultType, when set
	msg     string // substring of the error message, when set
	// data and result are members the error's data or the result must
	// hold (JSON-equal); resultIs is the whole result.
	data, result map[string]json.RawMessage
	resultIs     json.RawMessage
}

// hostileHeader is one header operation, applied after the standard
// headers are mirrored from the body: set (the first for a name replaces
// the mirrored value, later ones add a value) or delete.
type hostileHeader struct {
	del         bool
	name, value string
}

// hostileCase is one row of the corpus.
type hostileCase struct {
	file          string // where it was read, "" for a generated case
	line          int
	name          string
	rids          []string
	http, stdio   bool
	body          []byte        // template, placeholders expanded at run time
	gen           func() []byte // generated body (overrides body)
	verb          string
	host          string
	headers       []hostileHeader
	noMirror      bool
	raw           string // a whole HTTP/1.1 request sent over TCP to a real server
	contentLength *int64 // declared Content-Length, when it lies
	chunked       bool   // no Content-Length: the body is streamed
	stdioOff      bool   // generated cases: HTTP only
	want          hostileWant
	stdioWant     *hostileWant
	calls         map[string]int64 // how often each counting handler must run
	stdioCalls    map[string]int64 // the same on stdio, when it differs
	bug           string           // a known server bug: the case is skipped while it reproduces
	maxDur        time.Duration    // the request must be answered within this
	// eras are the server modes the case runs on (nil: ErasModern and
	// ErasBoth); modeWant and modeStdio are the answers of a mode where
	// they differ (want-both, stdio-legacy, ...), made at the end of the
	// case from modeLines.
	eras      []Eras
	modeLines map[Eras][][2]string
	modeWant  map[Eras]*hostileWant
	modeStdio map[Eras]*hostileWant
	modeBug   map[Eras]string           // bug-both: a known bug of one mode
	modeCalls map[Eras]map[string]int64 // calls-both: the handler runs on one mode
	before    [][]byte                  // stdio: lines sent first on the same stream, their answers ignored
}

// callsOn are the handler runs of the case's HTTP request on mode.
func (c *hostileCase) callsOn(mode Eras) map[string]int64 {
	if m, ok := c.modeCalls[mode]; ok {
		return m
	}
	return c.calls
}

// onMode is the case as it runs on a server of mode: its bug is the
// mode's.
func (c *hostileCase) onMode(mode Eras) *hostileCase {
	if b, ok := c.modeBug[mode]; ok {
		cc := *c
		cc.bug = b
		return &cc
	}
	return c
}

// hostileModes are the mode suffixes of the per-mode keys (want-both).
var hostileModes = map[string]Eras{"both": ErasBoth, "legacy": ErasLegacy}

// runsOn reports whether the case runs on a server of mode.
func (c *hostileCase) runsOn(mode Eras) bool {
	if c.eras == nil {
		return mode == ErasModern || mode == ErasBoth
	}
	return slices.Contains(c.eras, mode)
}

// wantOn is the HTTP answer on a server of mode.
func (c *hostileCase) wantOn(mode Eras) hostileWant {
	if w := c.modeWant[mode]; w != nil {
		return *w
	}
	return c.want
}

// stdioWantOn is the stdio answer on a server of mode: stdio-<mode>, else
// the stdio answer of the case (want-<mode> is the HTTP answer only).
func (c *hostileCase) stdioWantOn(mode Eras) hostileWant {
	if w := c.modeStdio[mode]; w != nil {
		return *w
	}
	if c.stdioWant != nil {
		return *c.stdioWant
	}
	return c.want
}

// usesSession reports whether the case names a session placeholder.
func (c *hostileCase) usesSession() bool {
	if bytes.Contains(c.body, []byte("${SID")) || strings.Contains(c.raw, "${SID") {
		return true
	}
	for _, h := range c.headers {
		if strings.Contains(h.value, "${SID") {
			return true
		}
	}
	return false
}

func (c *hostileCase) label() string {
	if c.file != "" {
		return fmt.Sprintf("%s:%d %s", c.file, c.line, c.name)
	}
	return "generated " + c.name
}

// loadHostileCorpus reads every testdata/hostile/*.txt file.
func loadHostileCorpus(t testing.TB) []*hostileCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "testdata", "hostile", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files in testdata/hostile: %v", err)
	}
	sort.Strings(files)
	var all []*hostileCase
	names := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cases, err := parseHostileCorpus(filepath.Base(f), string(b))
		if err != nil {
			t.Fatalf("%v", err)
		}
		for _, c := range cases {
			if prev, dup := names[c.name]; dup {
				t.Fatalf("%s: case name %q already used at %s", c.label(), c.name, prev)
			}
			names[c.name] = c.label()
		}
		all = append(all, cases...)
	}
	return all
}

// parseHostileCorpus parses one corpus file (see testdata/hostile/README.md).
func parseHostileCorpus(file, text string) ([]*hostileCase, error) {
	var out []*hostileCase
	var c *hostileCase
	finish := func() error {
		if c == nil {
			return nil
		}
		switch {
		case c.want.kind == "":
			return fmt.Errorf("%s: no want line", c.label())
		case c.body == nil && c.raw == "":
			return fmt.Errorf("%s: no body", c.label())
		case len(c.rids) == 0:
			return fmt.Errorf("%s: no rids line", c.label())
		case c.raw != "" && c.stdio:
			return fmt.Errorf("%s: a raw HTTP request cannot go over stdio (add on: http)", c.label())
		case c.stdio && bytes.ContainsAny(c.body, "\n"):
			return fmt.Errorf("%s: a body with a line feed cannot go over stdio as one line (add on: http)", c.label())
		case c.want.kind == "transport" && c.raw == "":
			return fmt.Errorf("%s: want transport needs a raw request", c.label())
		case c.stdio && c.usesSession():
			return fmt.Errorf("%s: a session placeholder needs on: http", c.label())
		case c.before != nil && c.http:
			return fmt.Errorf("%s: before lines need on: stdio", c.label())
		}
		for mode, lines := range c.modeLines {
			if !c.runsOn(mode) {
				return fmt.Errorf("%s: answers for %v, which the case does not run on (era)", c.label(), mode)
			}
			w := c.want
			for _, kv := range lines {
				if kv[0] == "stdio-id" {
					sw := c.modeStdio[mode]
					if sw == nil {
						return fmt.Errorf("%s: stdio-id-%v before stdio-%v", c.label(), mode, mode)
					}
					if err := applyHostileWant(sw, "id", kv[1]); err != nil {
						return err
					}
					continue
				}
				if kv[0] == "stdio" {
					sw := c.stdioWantOn(ErasModern)
					sw.status = 0
					if err := parseHostileKind(&sw, strings.TrimSpace(kv[1])); err != nil {
						return err
					}
					if c.modeStdio == nil {
						c.modeStdio = map[Eras]*hostileWant{}
					}
					c.modeStdio[mode] = &sw
					continue
				}
				if err := applyHostileWant(&w, kv[0], kv[1]); err != nil {
					return err
				}
			}
			if c.modeWant == nil {
				c.modeWant = map[Eras]*hostileWant{}
			}
			c.modeWant[mode] = &w
		}
		out = append(out, c)
		return nil
	}
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if name, ok := strings.CutPrefix(line, "=== "); ok {
			if err := finish(); err != nil {
				return nil, err
			}
			c = &hostileCase{file: file, line: n + 1, name: strings.TrimSpace(name), http: true, stdio: true, want: hostileWant{}}
			continue
		}
		if c == nil {
			return nil, fmt.Errorf("%s:%d: line outside a case: %q", file, n+1, line)
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("%s:%d: want key: value, got %q", file, n+1, line)
		}
		val = strings.TrimPrefix(val, " ")
		bad := func(err error) error { return fmt.Errorf("%s:%d: %s: %v", file, n+1, key, err) }
		if base, mode, ok := hostileModeKey(key); ok {
			// Checked now, applied at the end of the case (onto its want).
			w := hostileWant{}
			switch base {
			case "stdio":
				if err := parseHostileKind(&w, strings.TrimSpace(val)); err != nil {
					return nil, bad(err)
				}
			case "stdio-id":
				if err := applyHostileWant(&w, "id", val); err != nil {
					return nil, bad(err)
				}
			default:
				if err := applyHostileWant(&w, base, val); err != nil {
					return nil, bad(err)
				}
			}
			if c.modeLines == nil {
				c.modeLines = map[Eras][][2]string{}
			}
			c.modeLines[mode] = append(c.modeLines[mode], [2]string{base, val})
			continue
		}
		switch key {
		case "rids":
			c.rids = strings.Fields(val)
		case "on":
			c.http, c.stdio = false, false
			for _, tr := range strings.Fields(val) {
				switch tr {
				case "http":
					c.http = true
				case "stdio":
					c.stdio = true
				default:
					return nil, bad(fmt.Errorf("unknown transport %q", tr))
				}
			}
		case "body":
			c.body = []byte(val)
		case "bodyx":
			b, err := unescapeHostile(val, false)
			if err != nil {
				return nil, bad(err)
			}
			c.body = b
		case "verb":
			c.verb = val
		case "host":
			c.host = val
		case "header", "headerx":
			if key == "headerx" {
				b, err := unescapeHostile(val, true)
				if err != nil {
					return nil, bad(err)
				}
				val = string(b)
			}
			name, value, ok := strings.Cut(val, ":")
			if !ok {
				return nil, bad(fmt.Errorf("want Name: value"))
			}
			c.headers = append(c.headers, hostileHeader{name: name, value: strings.TrimPrefix(value, " ")})
		case "noheader":
			c.headers = append(c.headers, hostileHeader{del: true, name: val})
		case "nomirror":
			c.noMirror = true
		case "raw":
			b, err := unescapeHostile(val, true)
			if err != nil {
				return nil, bad(err)
			}
			c.raw = string(b)
		case "content-length":
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				return nil, bad(err)
			}
			c.contentLength = &n
		case "chunked":
			c.chunked = true
		case "want", "id", "text", "iserror", "type", "msg", "data", "result", "result-is":
			if err := applyHostileWant(&c.want, key, val); err != nil {
				return nil, bad(err)
			}
		case "stdio":
			w := c.want // the id and details carry over unless overridden
			w.status = 0
			if err := parseHostileKind(&w, strings.TrimSpace(val)); err != nil {
				return nil, bad(err)
			}
			c.stdioWant = &w
		case "stdio-id":
			if c.stdioWant == nil {
				return nil, bad(fmt.Errorf("stdio-id before stdio"))
			}
			if err := applyHostileWant(c.stdioWant, "id", val); err != nil {
				return nil, bad(err)
			}
		case "era":
			c.eras = nil
			for _, m := range strings.Fields(val) {
				e, ok := map[string]Eras{"modern": ErasModern, "both": ErasBoth, "legacy": ErasLegacy}[m]
				if !ok {
					return nil, bad(fmt.Errorf("unknown era %q (modern, both, legacy)", m))
				}
				c.eras = append(c.eras, e)
			}
			if len(c.eras) == 0 {
				return nil, bad(fmt.Errorf("no era"))
			}
		case "calls", "stdio-calls", "calls-both", "calls-legacy":
			m := map[string]int64{}
			for _, kv := range strings.Fields(val) {
				k, v, ok := strings.Cut(kv, "=")
				n, err := strconv.ParseInt(v, 10, 64)
				if !ok || err != nil {
					return nil, bad(fmt.Errorf("want name=count, got %q", kv))
				}
				m[k] = n
			}
			switch key {
			case "calls":
				c.calls = m
			case "stdio-calls":
				c.stdioCalls = m
			default:
				if c.modeCalls == nil {
					c.modeCalls = map[Eras]map[string]int64{}
				}
				c.modeCalls[hostileModes[strings.TrimPrefix(key, "calls-")]] = m
			}
		case "before":
			c.before = append(c.before, []byte(val))
		case "bug":
			c.bug = val
		case "bug-both", "bug-legacy":
			if c.modeBug == nil {
				c.modeBug = map[Eras]string{}
			}
			c.modeBug[hostileModes[strings.TrimPrefix(key, "bug-")]] = val
		case "maxms":
			n, err := strconv.Atoi(val)
			if err != nil {
				return nil, bad(err)
			}
			c.maxDur = time.Duration(n) * time.Millisecond
		default:
			return nil, fmt.Errorf("%s:%d: unknown key %q", file, n+1, key)
		}
	}
	if err := finish(); err != nil {
		return nil, err
	}
	return out, nil
}

// hostileModeKey splits a per-mode key (want-both, msg-legacy) into its
// base key and mode.
func hostileModeKey(key string) (string, Eras, bool) {
	i := strings.LastIndexByte(key, '-')
	if i < 0 {
		return "", 0, false
	}
	mode, ok := hostileModes[key[i+1:]]
	base := key[:i]
	switch base {
	case "want", "id", "text", "iserror", "type", "msg", "data", "result", "result-is", "stdio", "stdio-id":
	default:
		return "", 0, false
	}
	return base, mode, ok
}

// applyHostileWant applies one answer key to w. want sets the status and
// the kind and drops the details of the previous answer (text, msg, data,
// result, iserror, type); the id carries over.
func applyHostileWant(w *hostileWant, key, val string) error {
	switch key {
	case "want":
		f := strings.Fields(val)
		if len(f) != 2 {
			return fmt.Errorf("want <status> <code|result|none|transport>")
		}
		st, err := strconv.Atoi(f[0])
		if err != nil {
			return err
		}
		*w = hostileWant{status: st, id: w.id}
		return parseHostileKind(w, f[1])
	case "id":
		if val == "-" {
			w.id = ""
			return nil
		}
		if !json.Valid([]byte(val)) {
			return fmt.Errorf("id %q is not JSON", val)
		}
		w.id = val
	case "text":
		s := val
		w.text = &s
	case "iserror":
		b, err := strconv.ParseBool(val)
		if err != nil {
			return err
		}
		w.isError = &b
	case "type":
		w.rtype = val
	case "msg":
		w.msg = val
	case "data", "result":
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(val), &m); err != nil || m == nil {
			return fmt.Errorf("want a JSON object, got %q", val)
		}
		if key == "data" {
			w.data = m
		} else {
			w.result = m
		}
	case "result-is":
		if !json.Valid([]byte(val)) {
			return fmt.Errorf("%q is not JSON", val)
		}
		w.resultIs = json.RawMessage(val)
	default:
		return fmt.Errorf("not an answer key")
	}
	return nil
}

func parseHostileKind(w *hostileWant, s string) error {
	switch s {
	case "result", "none", "transport":
		w.kind, w.code = s, 0
		return nil
	}
	code, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("want a JSON-RPC code, result, none or transport, got %q", s)
	}
	w.kind, w.code = "error", code
	return nil
}

// unescapeHostile decodes \xHH escapes and, when control is set, \r, \n,
// \t and \\ too. Any other backslash is kept, so JSON escapes in a body
// (\", \u00e9) pass through.
func unescapeHostile(s string, control bool) ([]byte, error) {
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b = append(b, s[i])
			continue
		}
		switch e := s[i+1]; {
		case e == 'x':
			if i+4 > len(s) {
				return nil, fmt.Errorf("short \\x escape")
			}
			v, err := strconv.ParseUint(s[i+2:i+4], 16, 8)
			if err != nil {
				return nil, fmt.Errorf("bad \\x escape %q", s[i:i+4])
			}
			b = append(b, byte(v))
			i += 3
		case control && e == 'r':
			b, i = append(b, '\r'), i+1
		case control && e == 'n':
			b, i = append(b, '\n'), i+1
		case control && e == 't':
			b, i = append(b, '\t'), i+1
		case control && e == '\\':
			b, i = append(b, '\\'), i+1
		default:
			b = append(b, s[i])
		}
	}
	return b, nil
}

// hostileFixture is the one Server every corpus case goes to, with
// counting tools: a case says which handlers may run, and evil_tool must
// never run at all.
type hostileFixture struct {
	*Server
	h       http.Handler
	counts  map[string]*atomic.Int64
	vars    *strings.Replacer // ${...} placeholders
	varArgs []string          // what vars replaces, old and new in turn
	clock   *hostileClock     // the clock of the legacy sessions
}

var hostileKey = StateKey{ID: 7, Secret: []byte("hostile-corpus-state-key-0123456789abcdef")}

const hostileMeta = `{"io.modelcontextprotocol/protocolVersion":"` + rev + `","io.modelcontextprotocol/clientCapabilities":{}}`

const hostileElicitMeta = `{"io.modelcontextprotocol/protocolVersion":"` + rev + `","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`

// hostileOptions authenticate the principal named by X-User; "!deny" is
// refused.
var hostileOptions = HTTPOptions{Authenticate: func(r *http.Request) (string, error) {
	u := r.Header.Get("X-User")
	if u == "!deny" {
		return "", fmt.Errorf("denied")
	}
	return u, nil
}}

func newHostileFixture(t testing.TB, opts ...Option) *hostileFixture {
	t.Helper()
	f := &hostileFixture{Server: fixture(t, append([]Option{WithStateKeys(hostileKey)}, opts...)...), counts: map[string]*atomic.Int64{}}
	f.addTools(t, f.Server)
	f.h = f.Handler(hostileOptions)
	f.clock = &hostileClock{}
	f.now = f.clock.Now
	if st, ok := f.cfg.legacy.Store.(*MemorySessionStore); ok {
		st.now = f.clock.Now
	}
	if f.cfg.eras == ErasLegacy {
		// ErasLegacy cannot mint the sealed states (they come from modern
		// requests): they are minted by an ErasBoth server with the same
		// key.
		m := newHostileFixture(t, WithEras(ErasBoth))
		f.vars, f.varArgs = m.vars, m.varArgs
		return f
	}
	// Sealed states for the MRTR cases, minted through the transport.
	mint := func(h http.Handler, user string) string {
		t.Helper()
		body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":` + hostileElicitMeta + `,"name":"mrtr_a"}}`)
		rec := post(t, h, body, func(r *http.Request) {
			if user != "" {
				r.Header.Set("X-User", user)
			}
		})
		w := single(t, rec)
		st, ok := w.Result["requestState"].(string)
		if !ok {
			t.Fatalf("minting a requestState: %s", w.raw)
		}
		return st
	}
	st := mint(f.h, "")
	alice := mint(f.h, "alice")
	// An expired state: sealed with the same key by a server whose states
	// live 1 ms.
	short := &hostileFixture{Server: newServer(t, WithStateKeys(hostileKey), WithStateLimits(time.Millisecond, 0)), counts: map[string]*atomic.Int64{}}
	short.addTools(t, short.Server)
	expired := mint(short.Handler(hostileOptions), "")
	// A state sealed by a server with another key.
	foreign := &hostileFixture{Server: newServer(t, WithStateKeys(StateKey{ID: 7, Secret: []byte("another-server-entirely-0123456789abcdef")})), counts: map[string]*atomic.Int64{}}
	foreign.addTools(t, foreign.Server)
	other := mint(foreign.Handler(hostileOptions), "")
	time.Sleep(5 * time.Millisecond)
	flip := func(i int) string {
		b := []byte(st)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	}
	f.varArgs = []string{
		"${META}", hostileMeta,
		"${EMETA}", hostileElicitMeta,
		"${REV}", rev,
		"${ACCEPT}", `{"name":{"action":"accept","content":{"name":"Ann"}}}`,
		"${STATE}", st,
		"${STATE_TAMPERED}", flip(len(st) / 2),
		"${STATE_FIRST}", flip(0),
		"${STATE_LAST}", flip(len(st) - 1),
		"${STATE_TRUNC}", st[:len(st)-1],
		"${STATE_HALF}", st[:len(st)/2],
		"${STATE_ALICE}", alice,
		"${STATE_EXPIRED}", expired,
		"${STATE_FOREIGN}", other,
		"${STATE_HUGE}", st + strings.Repeat("A", DefaultMaxStateBytes),
		"${STATE_CRLF}", st[:10] + `\r\n` + st[10:],
	}
	f.vars = strings.NewReplacer(f.varArgs...)
	return f
}

// addTools registers the counting tools on s.
func (f *hostileFixture) addTools(t testing.TB, s *Server) {
	t.Helper()
	count := func(name string) *atomic.Int64 {
		if f.counts[name] == nil {
			f.counts[name] = new(atomic.Int64)
		}
		return f.counts[name]
	}
	hdrSchema := `{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"count":{"type":"integer","x-mcp-header":"Count"},
		"flag":{"type":"boolean","x-mcp-header":"Flag"},
		"note":{"type":"string"}}}`
	for _, name := range []string{"safe_tool", "evil_tool"} {
		n := count(name)
		addTool(t, s, `{"name":"`+name+`","inputSchema":`+hdrSchema+`}`, func(_ context.Context, _ *Request, args json.RawMessage) (*protocol.CallToolResult, error) {
			n.Add(1)
			// Decoded as handlers commonly do, with encoding/json.
			var a struct {
				Region string
				Count  json.Number
			}
			if err := json.Unmarshal(args, &a); err != nil {
				return nil, err
			}
			return TextResult(fmt.Sprintf("region=%s count=%s", a.Region, a.Count)), nil
		})
	}
	strict := count("strict_tool")
	addTool(t, s, `{"name":"strict_tool","inputSchema":{"type":"object","properties":{"n":{"type":"integer","minimum":0,"maximum":10}},"required":["n"],"additionalProperties":false}}`,
		func(context.Context, *Request, json.RawMessage) (*protocol.CallToolResult, error) {
			strict.Add(1)
			return TextResult("strict ok"), nil
		})
	num := count("num_tool")
	addTool(t, s, `{"name":"num_tool","inputSchema":{"type":"object","properties":{"x":{"type":"number"}}}}`,
		func(_ context.Context, _ *Request, args json.RawMessage) (*protocol.CallToolResult, error) {
			num.Add(1)
			if len(args) > 64 {
				return TextResult(fmt.Sprintf("%d bytes", len(args))), nil
			}
			return TextResult(string(args)), nil
		})
	// range_tool takes the general validator (minimum), the others below
	// too; sleep_tool and nest_tool decode as handlers commonly do.
	rng := count("range_tool")
	addTool(t, s, `{"name":"range_tool","inputSchema":{"type":"object","properties":{"a":{"type":"array","items":{"type":"number","minimum":0}}}}}`,
		func(context.Context, *Request, json.RawMessage) (*protocol.CallToolResult, error) {
			rng.Add(1)
			return TextResult("range ok"), nil
		})
	sleep := count("sleep_tool")
	addTool(t, s, `{"name":"sleep_tool","inputSchema":{"type":"object","properties":{"seconds":{"type":"integer","minimum":0},"kind":{"enum":["a","b"]}}}}`,
		func(_ context.Context, _ *Request, args json.RawMessage) (*protocol.CallToolResult, error) {
			sleep.Add(1)
			var a struct {
				Seconds int    `json:"seconds"`
				Kind    string `json:"kind"`
			}
			if err := json.Unmarshal(args, &a); err != nil {
				return nil, err
			}
			return TextResult(fmt.Sprintf("seconds=%d kind=%s", a.Seconds, a.Kind)), nil
		})
	nest := count("nest_tool")
	addTool(t, s, `{"name":"nest_tool","inputSchema":{"type":"object","properties":{
		"loc":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}},
		"items":{"type":"array","items":{"type":"object","properties":{"qty":{"type":"integer","minimum":1}}}}}}}`,
		func(_ context.Context, _ *Request, args json.RawMessage) (*protocol.CallToolResult, error) {
			nest.Add(1)
			var a struct {
				Loc struct {
					Zone string `json:"zone"`
				} `json:"loc"`
			}
			if err := json.Unmarshal(args, &a); err != nil {
				return nil, err
			}
			return TextResult("zone=" + a.Loc.Zone), nil
		})
	both := count("both_tool")
	addTool(t, s, `{"name":"both_tool","inputSchema":{"type":"object","properties":{"a":{"type":"integer"},"A":{"type":"string"},"id":{"type":"string"}},"patternProperties":{"^I":{"type":"string"}}}}`,
		func(_ context.Context, _ *Request, args json.RawMessage) (*protocol.CallToolResult, error) {
			both.Add(1)
			return TextResult(string(args)), nil
		})
	// route_tool: an x-mcp-header property with an enum, and a pattern
	// that matches its case variants too.
	route := count("route_tool")
	addTool(t, s, `{"name":"route_tool","inputSchema":{"type":"object","properties":{"region":{"type":"string","enum":["us"],"x-mcp-header":"Region"}},"patternProperties":{"^[A-Za-z]+$":{"type":"string"}}}}`,
		func(_ context.Context, _ *Request, args json.RawMessage) (*protocol.CallToolResult, error) {
			route.Add(1)
			var a struct {
				Region string `json:"region"`
			}
			if err := json.Unmarshal(args, &a); err != nil {
				return nil, err
			}
			return TextResult("region=" + a.Region), nil
		})
	// unique_tool: uniqueItems and an enum of an array and an object,
	// which the runtime checks itself (valueCheck).
	unique := count("unique_tool")
	addTool(t, s, `{"name":"unique_tool","inputSchema":{"type":"object","properties":{"tags":{"type":"array","uniqueItems":true},"pick":{"enum":[[1,2],{"a":1}]}}}}`,
		func(context.Context, *Request, json.RawMessage) (*protocol.CallToolResult, error) {
			unique.Add(1)
			return TextResult("unique ok"), nil
		})
	re := count("regex_tool")
	addTool(t, s, `{"name":"regex_tool","inputSchema":{"type":"object","properties":{"s":{"type":"string","pattern":"^(a+)+$"}}}}`,
		func(context.Context, *Request, json.RawMessage) (*protocol.CallToolResult, error) {
			re.Add(1)
			return TextResult("matched"), nil
		})
	for _, name := range []string{"mrtr_a", "mrtr_b"} {
		n := count(name)
		addTool(t, s, `{"name":"`+name+`","inputSchema":{"type":"object"}}`, func(_ context.Context, r *Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			n.Add(1)
			if resp, ok := r.InputResponse("name"); ok && r.State() != nil {
				if er, ok := resp.Value.(*protocol.ElicitResult); ok && er.Action == protocol.ElicitResultActionAccept {
					return TextResult("done " + string(r.State())), nil
				}
			}
			return nil, r.AskInput(map[string]protocol.InputRequest{"name": ElicitForm("Name?", map[string]protocol.PrimitiveSchemaDefinition{"name": StringField("")}, "name")}, []byte("st:"+r.Principal))
		})
	}
}

func (f *hostileFixture) snapshot() map[string]int64 {
	m := make(map[string]int64, len(f.counts))
	for k, v := range f.counts {
		m[k] = v.Load()
	}
	return m
}

// hostileCheck collects the failures of one case, so that a case marked
// with a known bug can be skipped rather than failed.
type hostileCheck struct {
	fails []string
}

func (k *hostileCheck) errorf(format string, args ...any) {
	k.fails = append(k.fails, fmt.Sprintf(format, args...))
}

func (k *hostileCheck) done(t *testing.T, c *hostileCase) {
	t.Helper()
	if len(k.fails) == 0 {
		if c.bug != "" {
			t.Logf("known bug no longer reproduces, drop its bug line: %s", c.bug)
		}
		return
	}
	msg := strings.Join(k.fails, "\n")
	if c.bug != "" {
		t.Skipf("KNOWN BUG (%s): %s\n  %s", strings.Join(c.rids, " "), c.bug, msg)
	}
	t.Errorf("%s [%s]:\n  %s", c.label(), strings.Join(c.rids, " "), msg)
}

// checkCounts compares the handler runs of one case with its calls line;
// evil_tool must never run.
func (f *hostileFixture) checkCounts(k *hostileCheck, calls map[string]int64, before map[string]int64) {
	after := f.snapshot()
	for name, want := range calls {
		if _, ok := after[name]; !ok {
			k.errorf("calls: no counting handler %q", name)
			continue
		}
		if got := after[name] - before[name]; got != want {
			k.errorf("handler %s ran %d times, want %d", name, got, want)
		}
	}
	if d := after["evil_tool"] - before["evil_tool"]; d != 0 {
		k.errorf("SMUGGLED: evil_tool ran %d times", d)
	}
}

// checkMessage compares one response with the wanted answer.
func checkHostileMessage(k *hostileCheck, w hostileWant, msg []byte) {
	if w.kind == "none" {
		k.errorf("want no message, got %s", hostileShort(msg))
		return
	}
	var m struct {
		JSONRPC json.RawMessage `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  *struct {
			ResultType string `json:"resultType"`
			IsError    *bool  `json:"isError"`
			Content    []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
		Error *wireError `json:"error"`
	}
	if err := json.Unmarshal(msg, &m); err != nil {
		k.errorf("answer is not a JSON-RPC message (%v): %s", err, hostileShort(msg))
		return
	}
	if string(m.JSONRPC) != `"2.0"` {
		k.errorf("R-BASE-02: jsonrpc %s", m.JSONRPC)
	}
	if got := string(m.ID); got != w.id {
		k.errorf("R-BASE-07: id %q, want %q (\"\" = none): %s", got, w.id, hostileShort(msg))
	}
	switch w.kind {
	case "error":
		if m.Error == nil {
			k.errorf("want error %d, got %s", w.code, hostileShort(msg))
			return
		}
		if m.Error.Code != w.code {
			k.errorf("code %d, want %d: %s", m.Error.Code, w.code, hostileShort(msg))
		}
		if w.msg != "" && !strings.Contains(m.Error.Message, w.msg) {
			k.errorf("message %q does not contain %q", m.Error.Message, w.msg)
		}
		if m.Error.Code == protocol.CodeParseError && m.ID != nil {
			k.errorf("R-BASE-07: parse error with an id")
		}
	case "result":
		if m.Result == nil {
			k.errorf("want a result, got %s", hostileShort(msg))
			return
		}
		text := ""
		if len(m.Result.Content) > 0 {
			text = m.Result.Content[0].Text
		}
		if w.text != nil && text != *w.text {
			k.errorf("text %q, want %q", hostileShort([]byte(text)), *w.text)
		}
		if w.textLen > 0 && len(text) != w.textLen {
			k.errorf("text of %d bytes, want %d", len(text), w.textLen)
		}
		isErr := m.Result.IsError != nil && *m.Result.IsError
		if w.isError != nil && isErr != *w.isError {
			k.errorf("isError %v, want %v: %s", isErr, *w.isError, hostileShort(msg))
		}
		if w.rtype != "" && m.Result.ResultType != w.rtype {
			k.errorf("resultType %q, want %q", m.Result.ResultType, w.rtype)
		}
	}
	if w.data == nil && w.result == nil && w.resultIs == nil {
		return
	}
	var raw struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Data json.RawMessage `json:"data"`
		} `json:"error"`
	}
	_ = json.Unmarshal(msg, &raw)
	if w.resultIs != nil && !sameJSON(raw.Result, w.resultIs) {
		k.errorf("result %s, want %s", hostileShort(raw.Result), w.resultIs)
	}
	check := func(what string, obj json.RawMessage, want map[string]json.RawMessage) {
		var got map[string]json.RawMessage
		_ = json.Unmarshal(obj, &got)
		for name, v := range want {
			if !sameJSON(got[name], v) {
				k.errorf("%s.%s is %s, want %s: %s", what, name, got[name], v, hostileShort(msg))
			}
		}
	}
	if w.data != nil {
		var data json.RawMessage
		if raw.Error != nil {
			data = raw.Error.Data
		}
		check("error.data", data, w.data)
	}
	if w.result != nil {
		check("result", raw.Result, w.result)
	}
}

// sameJSON reports whether two JSON texts are the same value.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func hostileShort(b []byte) string {
	if len(b) > 400 {
		return fmt.Sprintf("%s…(%d bytes)", b[:400], len(b))
	}
	return string(b)
}

// hostileBody expands the placeholders of a case's body.
func (f *hostileFixture) hostileBody(c *hostileCase) []byte {
	if c.gen != nil {
		return c.gen()
	}
	return []byte(f.vars.Replace(string(c.body)))
}

// hostileProbe is the normal request sent after every hostile one.
func hostileProbe(id string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":"` + id + `","method":"tools/list","params":{"_meta":` + hostileMeta + `}}`)
}

// onlyReader hides the type of its reader, so that net/http cannot learn
// the body's length.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// setHostileHeaders sets on hdr the headers of c: those mirror derives
// from body (unless c.noMirror), then c's own headers in order,
// with the fixture's variables replaced (a first value replaces, a
// repeated name adds a value, a deletion removes the header).
func (f *hostileFixture) setHostileHeaders(c *hostileCase, hdr http.Header, body []byte) {
	if !c.noMirror {
		for k, v := range mirror(body) {
			hdr[k] = v
		}
	}
	set := map[string]bool{}
	for _, h := range c.headers {
		name := http.CanonicalHeaderKey(h.name)
		switch {
		case h.del:
			delete(hdr, name)
		case !set[name]:
			set[name] = true
			hdr[name] = []string{f.vars.Replace(h.value)}
		default:
			hdr[name] = append(hdr[name], f.vars.Replace(h.value))
		}
	}
}

// serveHostileHTTP sends one case to the in-process handler.
func (f *hostileFixture) serveHostileHTTP(c *hostileCase, body []byte) (*httptest.ResponseRecorder, time.Duration) {
	verb := c.verb
	if verb == "" {
		verb = http.MethodPost
	}
	r := httptest.NewRequest(verb, "/mcp", bytes.NewReader(body))
	r.Host = loopback
	if c.host != "" {
		r.Host = f.vars.Replace(c.host)
		if c.host == "-" {
			r.Host = ""
		}
	}
	r.Header.Set("Content-Type", "application/json")
	f.setHostileHeaders(c, r.Header, body)
	if c.contentLength != nil {
		r.ContentLength = *c.contentLength
	}
	if c.chunked {
		r.Body = io.NopCloser(onlyReader{bytes.NewReader(body)})
		r.ContentLength = -1
		r.TransferEncoding = []string{"chunked"}
	}
	w := httptest.NewRecorder()
	start := time.Now()
	f.h.ServeHTTP(w, r)
	return w, time.Since(start)
}

// serveHostileRaw writes a raw request to a real server and reads its
// answer.
func (f *hostileFixture) serveHostileRaw(t *testing.T, srv *httptest.Server, c *hostileCase, body []byte) (*http.Response, []byte, time.Duration) {
	t.Helper()
	raw := strings.NewReplacer("${BODY}", string(body), "${LEN}", strconv.Itoa(len(body)), "${HEXLEN}", strconv.FormatInt(int64(len(body)), 16)).Replace(c.raw)
	raw = f.vars.Replace(raw)
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	start := time.Now()
	if _, err := io.WriteString(conn, raw); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the answer to a raw request: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b, time.Since(start)
}

// runHostileHTTP runs one case over HTTP, then the probe.
func (f *hostileFixture) runHostileHTTP(t *testing.T, srv *httptest.Server, c *hostileCase) {
	f = f.forCase(t, c)
	want := c.wantOn(f.cfg.eras)
	body := f.hostileBody(c)
	before := f.snapshot()
	k := &hostileCheck{}
	var (
		status int
		ctype  string
		got    []byte
		dur    time.Duration
	)
	var sid string
	if c.raw != "" {
		resp, b, d := f.serveHostileRaw(t, srv, c, body)
		status, ctype, got, dur, sid = resp.StatusCode, resp.Header.Get("Content-Type"), b, d, resp.Header.Get(HeaderSessionID)
	} else {
		rec, d := f.serveHostileHTTP(c, body)
		status, ctype, got, dur, sid = rec.Code, rec.Header().Get("Content-Type"), rec.Body.Bytes(), d, rec.Header().Get(HeaderSessionID)
	}
	if sid != "" {
		f.checkMintedSession(t, k, c, body, status, got, sid)
	}
	if status != want.status {
		k.errorf("status %d, want %d: %s", status, want.status, hostileShort(got))
	}
	switch want.kind {
	case "transport":
		// net/http refused the request before the handler: nothing more.
	case "none":
		if len(got) != 0 {
			k.errorf("want no body, got %s", hostileShort(got))
		}
	default:
		if ctype != "application/json" {
			k.errorf("Content-Type %q, want application/json", ctype)
		}
		checkHostileMessage(k, want, got)
	}
	f.checkCounts(k, c.callsOn(f.cfg.eras), before)
	if max := c.limit(); dur > max {
		k.errorf("answered in %v, more than %v", dur, max)
	}
	// The next normal request is served (checked before a known bug
	// skips the case).
	if c.raw != "" {
		probe := &hostileCase{raw: "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nMcp-Protocol-Version: " + rev + "\r\nMcp-Method: tools/list\r\nContent-Length: ${LEN}\r\nConnection: close\r\n\r\n${BODY}"}
		if f.cfg.eras == ErasLegacy {
			probe.raw = "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${LEN}\r\nConnection: close\r\n\r\n${BODY}"
		}
		resp, b, _ := f.serveHostileRaw(t, srv, probe, f.probe("probe"))
		f.checkProbe(t, resp.StatusCode, b, "probe")
	} else {
		rec := post(t, f.h, f.probe("probe"), nil)
		f.checkProbe(t, rec.Code, rec.Body.Bytes(), "probe")
	}
	k.done(t, c.onMode(f.cfg.eras))
}

func (c *hostileCase) limit() time.Duration {
	if c.maxDur > 0 {
		return c.maxDur
	}
	return 10 * time.Second
}

func (f *hostileFixture) checkProbe(t *testing.T, status int, body []byte, id string) {
	t.Helper()
	if f.cfg.eras == ErasLegacy {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if status != http.StatusOK || json.Unmarshal(body, &m) != nil || string(m.ID) != `"`+id+`"` || string(m.Result) != "{}" {
			t.Errorf("the next normal request (ping) was not served: %d %s", status, hostileShort(body))
		}
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Result struct {
			Tools []json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if status != http.StatusOK || json.Unmarshal(body, &m) != nil || string(m.ID) != `"`+id+`"` || len(m.Result.Tools) == 0 {
		t.Errorf("the next normal request was not served: %d %s", status, hostileShort(body))
	}
}

// runHostileStdio runs one case over stdio: its body as one line, then the
// probe, on the same stream.
func (f *hostileFixture) runHostileStdio(t *testing.T, c *hostileCase) {
	want := c.stdioWantOn(f.cfg.eras)
	body := f.hostileBody(c)
	before := f.snapshot()
	k := &hostileCheck{}
	in := make([]byte, 0, len(body)+256)
	for _, l := range c.before {
		in = append(append(in, f.vars.Replace(string(l))...), '\n')
	}
	in = append(append(append(in, body...), '\n'), f.probe("probe")...)
	in = append(in, '\n')
	var out bytes.Buffer
	start := time.Now()
	if err := f.ServeStdio(context.Background(), bytes.NewReader(in), &out); err != nil {
		t.Fatalf("ServeStdio: %v", err)
	}
	dur := time.Since(start)
	var msgs [][]byte
	probes := 0
	for _, l := range bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		checkStdioLine(t, string(l)) // one JSON-RPC message per line, never a request
		var probe struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(l, &probe) == nil && string(probe.ID) == `"probe"` {
			f.checkProbe(t, http.StatusOK, l, "probe")
			probes++
			continue
		}
		if c.before != nil && bytes.HasPrefix(probe.ID, []byte(`"before`)) {
			continue // the answer to a before line
		}
		msgs = append(msgs, l)
	}
	if probes != 1 {
		t.Errorf("the next normal request got %d answers, want 1", probes)
	}
	switch {
	case want.kind == "none" && len(msgs) == 0:
	case want.kind == "none":
		k.errorf("want no message, got %s", hostileShort(msgs[0]))
	case len(msgs) != 1:
		k.errorf("%d messages, want 1", len(msgs))
	default:
		checkHostileMessage(k, want, msgs[0])
	}
	calls := c.calls
	if c.stdioCalls != nil {
		calls = c.stdioCalls
	}
	f.checkCounts(k, calls, before)
	if max := c.limit(); dur > max {
		k.errorf("answered in %v, more than %v", dur, max)
	}
	k.done(t, c.onMode(f.cfg.eras))
}

// TestHostileCorpus runs every corpus case on each of its transports.
func TestHostileCorpus(t *testing.T) {
	cases := append(loadHostileCorpus(t), generatedHostileCases()...)
	f := newHostileFixture(t)
	srv := httptest.NewServer(f.h)
	defer srv.Close()
	perFile := map[string]int{}
	for _, c := range cases {
		if !c.runsOn(ErasModern) {
			continue
		}
		perFile[c.file]++
		if c.http {
			t.Run("http/"+c.name, func(t *testing.T) { f.runHostileHTTP(t, srv, c) })
		}
		if c.stdio {
			t.Run("stdio/"+c.name, func(t *testing.T) { f.runHostileStdio(t, c) })
		}
	}
	if len(cases) < 120 {
		t.Errorf("the corpus has %d cases, want at least 120", len(cases))
	}
	t.Logf("%d cases: %v", len(cases), perFile)
}

// generatedHostileCases are the inputs too large to keep on disk.
func generatedHostileCases() []*hostileCase {
	wrap := func(member string) []byte { // a tools/list request with an extra top-level member
		return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":` + hostileMeta + `},"x":` + member + `}`)
	}
	call := func(tool, args string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":` + hostileMeta + `,"name":"` + tool + `","arguments":` + args + `}}`)
	}
	nest := func(n int, open, close, inner string) string {
		return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
	}
	// pad grows a tools/list request with white space to exactly n bytes.
	pad := func(n int) []byte {
		b := hostileProbe("big")
		return append(b, bytes.Repeat([]byte(" "), n-len(b))...)
	}
	// The decode limits of the server (WithDecodeLimits): nesting, string
	// length and object members, each tested at and over its value.
	lim := DefaultDecodeLimits()
	maxDepth := lim.MaxDepth
	if maxDepth <= 0 {
		maxDepth = protocol.DefaultMaxDepth
	}
	maxString, maxMembers := lim.MaxStringBytes, lim.MaxMembers
	// The request object is level 1, params 2, arguments 3: this many
	// arrays in arguments reach the limit exactly.
	atDepth := `{"y":` + nest(maxDepth-3, "[", "]", "") + `}`
	array := `{"y":[` + strings.Repeat("0,", 999999) + `0]}`
	atValues := `{"y":[` + strings.Repeat("0,", DefaultMaxArgumentValues-3) + `0]}` // the object, y and its elements
	members := func(n int) string { return objectOf(n, func(i int) string { return fmt.Sprintf(`"k%d":0`, i) }) }
	size := func(s string) string { return fmt.Sprintf("%d bytes", len(s)) }
	// Bounds against a hang, not timings: a shared CI machine under -race
	// is slow. That these inputs are refused as the limit is crossed, not
	// after reading them through, is checked by protocol's limit tests.
	fast := 5 * time.Second  // what must not be parsed through
	slow := 30 * time.Second // what must be parsed through, under -race on a busy machine
	idErr := func(code int64, id string) hostileWant {
		return hostileWant{status: httpStatus(code), kind: "error", code: code, id: id}
	}
	result := func(text string) hostileWant {
		return hostileWant{status: http.StatusOK, kind: "result", id: "1", text: &text}
	}
	yes := true
	toolErr := func(text string) hostileWant {
		return hostileWant{status: http.StatusOK, kind: "result", id: "1", text: &text, isError: &yes}
	}
	cases := []*hostileCase{
		// Deep nesting: refused at the nesting limit (DefaultDecodeLimits,
		// within protocol.DefaultMaxDepth) without parsing the rest, and
		// fast (no recursion 100,000 deep).
		{name: "deep/100000 arrays in an ignored member", rids: []string{"R-BASE-07", "WithDecodeLimits"},
			gen:  func() []byte { return wrap(nest(100000, "[", "]", "")) },
			want: idErr(protocol.CodeInvalidRequestError, ""), maxDur: fast},
		{name: "deep/100000 objects in an ignored member", rids: []string{"R-BASE-07", "WithDecodeLimits"},
			gen:  func() []byte { return wrap(nest(100000, `{"a":`, "}", "1")) },
			want: idErr(protocol.CodeInvalidRequestError, ""), maxDur: fast},
		{name: "deep/100000 unclosed arrays (truncated too)", rids: []string{"R-BASE-07", "WithDecodeLimits"},
			gen:  func() []byte { return wrap(strings.Repeat("[", 100000)) },
			want: idErr(protocol.CodeInvalidRequestError, ""), maxDur: fast},
		{name: "deep/100000 levels in a _meta vendor key", rids: []string{"R-BASE-07", "R-META-01", "WithDecodeLimits"},
			gen: func() []byte {
				return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"` + rev + `","io.modelcontextprotocol/clientCapabilities":{},"x.example/v":` + nest(100000, "[", "]", "") + `}}}`)
			},
			want: idErr(protocol.CodeInvalidRequestError, ""), maxDur: fast},
		{name: "deep/100000 levels in tool arguments", rids: []string{"R-BASE-07", "WithDecodeLimits"}, calls: map[string]int64{"safe_tool": 0},
			gen:  func() []byte { return call("safe_tool", `{"note":`+nest(100000, "[", "]", "")+`}`) },
			want: idErr(protocol.CodeInvalidRequestError, ""), maxDur: fast},
		{name: "deep/at the nesting limit is served", rids: []string{"WithDecodeLimits"}, calls: map[string]int64{"num_tool": 1},
			gen:  func() []byte { return call("num_tool", atDepth) },
			want: result(size(atDepth))},
		{name: "deep/one level over the nesting limit is refused, id echoed", rids: []string{"WithDecodeLimits", "R-BASE-07"}, calls: map[string]int64{"num_tool": 0},
			gen:  func() []byte { return call("num_tool", `{"y":`+nest(maxDepth-2, "[", "]", "")+`}`) },
			want: idErr(protocol.CodeInvalidRequestError, "1")},

		// Numbers too long for any integer type.
		{name: "numbers/10000-digit integer id", rids: []string{"R-BASE-04", "R-BASE-07"},
			gen: func() []byte {
				return []byte(`{"jsonrpc":"2.0","id":` + strings.Repeat("9", 10000) + `,"method":"tools/list","params":{"_meta":` + hostileMeta + `}}`)
			},
			want: idErr(protocol.CodeInvalidRequestError, ""), maxDur: fast},
		{name: "numbers/10000-digit negative id", rids: []string{"R-BASE-04", "R-BASE-07"},
			gen: func() []byte {
				return []byte(`{"jsonrpc":"2.0","id":-` + strings.Repeat("1", 10000) + `,"method":"tools/list","params":{"_meta":` + hostileMeta + `}}`)
			},
			want: idErr(protocol.CodeInvalidRequestError, ""), maxDur: fast},
		{name: "numbers/10000-digit number argument is over the number limit", rids: []string{"R-SCHEMA-01", "R-TOOL-10", "WithNumberLimits"}, calls: map[string]int64{"num_tool": 0},
			gen:  func() []byte { return call("num_tool", `{"x":`+strings.Repeat("7", 10000)+`}`) },
			want: toolErr(fmt.Sprintf("Invalid arguments: at /x: number has 10000 digits, more than the limit of %d", DefaultMaxNumberDigits)), maxDur: fast},
		{name: "numbers/a number of as many digits as the limit is served", rids: []string{"R-SCHEMA-01", "WithNumberLimits"}, calls: map[string]int64{"num_tool": 1},
			gen:  func() []byte { return call("num_tool", `{"x":`+strings.Repeat("7", DefaultMaxNumberDigits)+`}`) },
			want: result(size(`{"x":` + strings.Repeat("7", DefaultMaxNumberDigits) + `}`))},
		{name: "numbers/a fraction one digit over the limit is refused", rids: []string{"R-SCHEMA-01", "R-TOOL-10", "WithNumberLimits"}, calls: map[string]int64{"num_tool": 0},
			gen: func() []byte {
				return call("num_tool", `{"x":0.`+strings.Repeat("1", DefaultMaxNumberDigits)+`}`)
			},
			want: toolErr(fmt.Sprintf("Invalid arguments: at /x: number has %d digits, more than the limit of %d", DefaultMaxNumberDigits+1, DefaultMaxNumberDigits))},
		{name: "numbers/100000-digit integer against a maximum is refused by the number limit", rids: []string{"R-SCHEMA-08", "R-TOOL-10", "WithNumberLimits"}, calls: map[string]int64{"strict_tool": 0},
			gen:  func() []byte { return call("strict_tool", `{"n":`+strings.Repeat("7", 100000)+`}`) },
			want: toolErr(fmt.Sprintf("Invalid arguments: at /n: number has 100000 digits, more than the limit of %d", DefaultMaxNumberDigits)), maxDur: fast},
		// 1e999999 costs the validator's big.Rat some 20 ms; 200 of them
		// fit in 2 KB.
		{name: "numbers/200 numbers of 1e999999 against a minimum are refused at once", rids: []string{"R-SCHEMA-08", "R-TOOL-10", "WithNumberLimits"}, calls: map[string]int64{"range_tool": 0},
			gen: func() []byte {
				return call("range_tool", `{"a":[`+strings.TrimSuffix(strings.Repeat("1e999999,", 200), ",")+`]}`)
			},
			want: toolErr(fmt.Sprintf("Invalid arguments: at /a/0: number's exponent is beyond the limit of ±%d", DefaultMaxNumberExponent)), maxDur: fast},
		{name: "numbers/arguments over the validation work bound are refused before the validator", rids: []string{"R-SCHEMA-08", "R-TOOL-10", "WithMaxValidationWork"}, calls: map[string]int64{"range_tool": 0},
			gen: func() []byte {
				return call("range_tool", `{"a":[`+strings.TrimSuffix(strings.Repeat("1e400,", DefaultMaxValidationWork/80), ",")+`]}`)
			},
			want: hostileWant{status: http.StatusOK, kind: "result", id: "1", isError: &yes}, maxDur: slow},
		{name: "numbers/10000-digit integer against a maximum is a tool error", rids: []string{"R-SCHEMA-01"}, calls: map[string]int64{"strict_tool": 0},
			gen:  func() []byte { return call("strict_tool", `{"n":`+strings.Repeat("7", 10000)+`}`) },
			want: hostileWant{status: http.StatusOK, kind: "result", id: "1", isError: &yes}, maxDur: fast},
		{name: "numbers/10000-digit integer in an x-mcp-header argument is refused", rids: []string{"R-HDR-08"}, calls: map[string]int64{"safe_tool": 0},
			gen:       func() []byte { return call("safe_tool", `{"count":`+strings.Repeat("7", 10000)+`}`) },
			headers:   []hostileHeader{{name: "Mcp-Param-Count", value: strings.Repeat("7", 10000)}},
			want:      idErr(protocol.CodeHeaderMismatchError, "1"),
			stdioWant: &hostileWant{kind: "result", id: "1", isError: &yes}, stdioCalls: map[string]int64{"safe_tool": 0}, maxDur: fast},

		// Huge values under the body limit.
		// The values of arguments (WithMaxArgumentValues: members and
		// elements, the arguments object included) are counted before
		// any is built.
		{name: "huge/array of 1,000,000 elements is over the value limit", rids: []string{"R-TOOL-10", "WithMaxArgumentValues"}, calls: map[string]int64{"num_tool": 0},
			gen:  func() []byte { return call("num_tool", array) },
			want: toolErr(fmt.Sprintf("Invalid arguments: at /: more values (object members and array elements) than the limit of %d", DefaultMaxArgumentValues)), maxDur: fast},
		{name: "huge/arguments of exactly the value limit are served", rids: []string{"R-SCHEMA-01", "WithMaxArgumentValues"}, calls: map[string]int64{"num_tool": 1},
			gen:  func() []byte { return call("num_tool", atValues) },
			want: result(size(atValues)), maxDur: slow},
		{name: "huge/arguments of one value over the limit are refused", rids: []string{"R-TOOL-10", "WithMaxArgumentValues"}, calls: map[string]int64{"num_tool": 0},
			gen:  func() []byte { return call("num_tool", `{"y":[0,`+atValues[len(`{"y":[`):]) },
			want: toolErr(fmt.Sprintf("Invalid arguments: at /: more values (object members and array elements) than the limit of %d", DefaultMaxArgumentValues)), maxDur: fast},
		{name: "huge/arguments over the value limit are still held to their Mcp-Param-* headers", rids: []string{"R-HDR-07", "WithMaxArgumentValues"}, calls: map[string]int64{"safe_tool": 0},
			gen: func() []byte {
				return call("safe_tool", `{"region":"eu","note":{"a":[[1],{"region":"us"}]},"y":`+array[len(`{"y":`):])
			},
			headers:   []hostileHeader{{name: "Mcp-Param-Region", value: "us"}},
			want:      idErr(protocol.CodeHeaderMismatchError, "1"),
			stdioWant: &hostileWant{kind: "result", id: "1", isError: &yes}, stdioCalls: map[string]int64{"safe_tool": 0}, maxDur: fast},
		{name: "huge/arguments over the value limit with matching headers are a tool error", rids: []string{"R-HDR-07", "WithMaxArgumentValues"}, calls: map[string]int64{"safe_tool": 0},
			gen: func() []byte {
				return call("safe_tool", `{"y":`+array[len(`{"y":`):len(array)-1]+`,"region":"us","count":7}`)
			},
			headers: []hostileHeader{{name: "Mcp-Param-Region", value: "us"}, {name: "Mcp-Param-Count", value: "7"}},
			want:    toolErr(fmt.Sprintf("Invalid arguments: at /: more values (object members and array elements) than the limit of %d", DefaultMaxArgumentValues)), maxDur: fast},
		{name: "huge/100,000 character string against a backtracking pattern", rids: []string{"R-SCHEMA-08"}, calls: map[string]int64{"regex_tool": 0},
			gen:  func() []byte { return call("regex_tool", `{"s":"`+strings.Repeat("a", 100000)+`!"}`) },
			want: hostileWant{status: http.StatusOK, kind: "result", id: "1", isError: &yes}, maxDur: slow},
		{name: "huge/1 MiB method name", rids: []string{"R-HTTP-15"},
			gen: func() []byte {
				return []byte(`{"jsonrpc":"2.0","id":1,"method":"` + strings.Repeat("m", min(1<<20, maxString)) + `","params":{"_meta":` + hostileMeta + `}}`)
			},
			want: idErr(protocol.CodeMethodNotFoundError, "1")},

		// The body limit (DefaultMaxBodyBytes, 4 MiB) and the stdio line
		// limit (the same by default).
		{name: "limit/body of exactly 4 MiB is served", rids: []string{"R-HTTP-08"},
			gen:  func() []byte { return pad(DefaultMaxBodyBytes) },
			want: hostileWant{status: http.StatusOK, kind: "result", id: `"big"`}},
		{name: "limit/body of 4 MiB + 1 is 413", rids: []string{"R-HTTP-08"},
			gen:       func() []byte { return pad(DefaultMaxBodyBytes + 1) },
			want:      idErr(protocol.CodeInvalidRequestError, ""),
			stdioWant: &hostileWant{kind: "error", code: protocol.CodeInvalidRequestError, msg: "line too long"}},
		{name: "limit/10 MiB body is 413, 10 MiB line is refused", rids: []string{"R-HTTP-08", "R-STDIO-01"},
			gen:       func() []byte { return pad(10 << 20) },
			want:      idErr(protocol.CodeInvalidRequestError, ""),
			stdioWant: &hostileWant{kind: "error", code: protocol.CodeInvalidRequestError, msg: "line too long"}},
		{name: "limit/chunked body of 4 MiB + 1 without Content-Length is 413", rids: []string{"R-HTTP-08"}, stdioOff: true, chunked: true,
			gen:  func() []byte { return pad(DefaultMaxBodyBytes + 1) },
			want: idErr(protocol.CodeInvalidRequestError, "")},
		{name: "limit/chunked 10 MiB body without Content-Length is 413", rids: []string{"R-HTTP-08"}, stdioOff: true, chunked: true,
			gen:  func() []byte { return pad(10 << 20) },
			want: idErr(protocol.CodeInvalidRequestError, "")},
		{name: "limit/chunked body of exactly 4 MiB is served", rids: []string{"R-HTTP-08"}, stdioOff: true, chunked: true,
			gen:  func() []byte { return pad(DefaultMaxBodyBytes) },
			want: hostileWant{status: http.StatusOK, kind: "result", id: `"big"`}},
	}
	if maxString > 0 && 3*maxString < DefaultMaxBodyBytes-1024 {
		text := strings.Repeat("x", maxString)
		cases = append(cases,
			&hostileCase{name: "huge/a string at the string limit is echoed", rids: []string{"R-BASE-03", "WithDecodeLimits"},
				gen: func() []byte {
					return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":` + hostileMeta + `,"name":"echo","arguments":{"text":"` + text + `"}}}`)
				},
				want: hostileWant{status: http.StatusOK, kind: "result", id: "1", textLen: maxString}, maxDur: slow},
			&hostileCase{name: "huge/three strings at the string limit are served", rids: []string{"WithDecodeLimits", "R-HTTP-08"}, calls: map[string]int64{"num_tool": 1},
				gen:  func() []byte { return call("num_tool", `{"a":"`+text+`","b":"`+text+`","c":"`+text+`"}`) },
				want: result(size(`{"a":"` + text + `","b":"` + text + `","c":"` + text + `"}`)), maxDur: slow},
			&hostileCase{name: "huge/a string one byte over the string limit is refused", rids: []string{"WithDecodeLimits", "R-BASE-07"},
				gen: func() []byte {
					return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":` + hostileMeta + `,"name":"echo","arguments":{"text":"` + text + `x"}}}`)
				},
				want: idErr(protocol.CodeInvalidRequestError, "1"), maxDur: fast},
			&hostileCase{name: "huge/an escaped string over the string limit is refused", rids: []string{"WithDecodeLimits", "R-BASE-07"},
				gen: func() []byte {
					return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":` + hostileMeta + `,"name":"echo","arguments":{"text":"\u0041` + text + `"}}}`)
				},
				want: idErr(protocol.CodeInvalidRequestError, "1"), maxDur: fast},
			&hostileCase{name: "huge/a member name over the string limit is refused", rids: []string{"WithDecodeLimits", "R-BASE-07"}, calls: map[string]int64{"num_tool": 0},
				gen:  func() []byte { return call("num_tool", `{"`+text+`x":1}`) },
				want: idErr(protocol.CodeInvalidRequestError, "1"), maxDur: fast},
		)
	}
	if maxMembers > 0 && maxMembers*16 < DefaultMaxBodyBytes {
		cases = append(cases,
			&hostileCase{name: "huge/half the member limit in arguments is served", rids: []string{"WithDecodeLimits"}, calls: map[string]int64{"num_tool": 1},
				gen:  func() []byte { return call("num_tool", members(maxMembers/2)) },
				want: result(size(members(maxMembers / 2))), maxDur: slow},
			&hostileCase{name: "huge/twice the member limit in arguments is refused", rids: []string{"WithDecodeLimits", "R-BASE-07"}, calls: map[string]int64{"num_tool": 0},
				gen:  func() []byte { return call("num_tool", members(2*maxMembers)) },
				want: idErr(protocol.CodeInvalidRequestError, "1"), maxDur: fast},
			&hostileCase{name: "huge/members over the limit spread over many small objects are refused", rids: []string{"WithDecodeLimits", "R-BASE-07"}, calls: map[string]int64{"num_tool": 0},
				gen: func() []byte {
					return call("num_tool", `{"y":[`+strings.TrimSuffix(strings.Repeat(`{"a":0},`, maxMembers+1), ",")+`]}`)
				},
				want: idErr(protocol.CodeInvalidRequestError, "1"), maxDur: fast},
		)
	}
	for _, c := range cases {
		c.http, c.stdio = true, !c.stdioOff
		if c.want.status == 0 {
			c.want.status = http.StatusOK
		}
	}
	// 413 is the status of the body limit.
	for _, c := range cases {
		if strings.HasPrefix(c.name, "limit/") && c.want.kind == "error" {
			c.want.status = http.StatusRequestEntityTooLarge
		}
	}
	return cases
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
	s := newServer(t)
	h := s.Handler(HTTPOptions{})
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			name := fmt.Sprintf("schema_%d", i)
			js := strings.ReplaceAll(c.schema, "${REMOTE}", remote.URL)
			var def protocol.Tool
			if err := protocol.Unmarshal([]byte(`{"name":"`+name+`","inputSchema":`+js+`}`), &def); err != nil {
				t.Fatalf("tool definition: %v", err)
			}
			err := s.AddTool(def, textTool("ok"))
			k := &hostileCheck{}
			switch {
			case c.refuse && err == nil:
				k.errorf("AddTool accepted the schema")
				s.RemoveTool(name)
			case !c.refuse && err != nil:
				k.errorf("AddTool: %v", err)
			case !c.refuse:
				start := time.Now()
				w := call(t, h, 1, protocol.MethodToolsCall, params(M{"name": name, "arguments": c.args}))
				if w.Result == nil {
					k.errorf("call: %s", w.raw)
				}
				if d := time.Since(start); d > 10*time.Second {
					k.errorf("validation took %v", d)
				}
			}
			if n := hits.Load(); n != 0 {
				k.errorf("R-SCHEMA-05: the schema server was fetched %d times", n)
			}
			k.done(t, &hostileCase{name: c.name, rids: c.rids, bug: c.bug})
		})
	}
}

// TestHostileStdioStreams feeds whole stdio streams: framing, line limits
// and interleaving (R-STDIO-01..05). Every stream ends with a normal
// request that must be served.
func TestHostileStdioStreams(t *testing.T) {
	discover := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"server/discover","params":{"_meta":` + hostileMeta + `}}`
	}
	call := func(id, tool, args string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"_meta":` + hostileMeta + `,"name":"` + tool + `","arguments":` + args + `}}`
	}
	probe := string(hostileProbe("probe"))
	type msg = stdioMsg
	cases := []struct {
		name  string
		rids  []string
		opts  []Option
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
		{name: "a line over a small limit, then a line at it", rids: []string{"R-STDIO-01"}, opts: []Option{WithMaxStdioLine(len(probe))},
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
	for _, mode := range []Eras{ErasModern, ErasBoth} {
		f := newHostileFixture(t, WithEras(mode))
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
func runStdioStream(t *testing.T, f *hostileFixture, mode Eras, name string, rids []string, opts []Option, input string, wantModern, wantBoth []stdioMsg) {
	want := wantModern
	if mode == ErasBoth && wantBoth != nil {
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
			s = newServer(t, append(opts, WithEras(mode))...)
		}
		var out bytes.Buffer
		start := time.Now()
		if err := s.ServeStdio(context.Background(), strings.NewReader(c.input), &out); err != nil {
			t.Fatalf("ServeStdio: %v", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("took %v", d)
		}
		var got []*wire
		for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if l != "" {
				got = append(got, checkStdioLine(t, l))
			}
		}
		used := make([]bool, len(got))
		for _, w := range c.want {
			found := false
			for i, g := range got {
				if used[i] || g.id() != w.id || g.code() != w.code || (w.text != "" && g.text(t, 0) != w.text) {
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
				t.Errorf("[%s] unexpected message %s", strings.Join(c.rids, " "), hostileShort(g.raw))
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
	f := newHostileFixture(t, WithShutdownTimeout(2*time.Minute))
	var cases []*hostileCase
	for _, c := range append(loadHostileCorpus(t), generatedHostileCases()...) {
		// A legacy initialize would open the stream's session and change
		// the answers to the lines after it: those run on their own
		// streams (TestHostileCorpus*).
		opens := f.cfg.eras != ErasModern && bytes.Contains(c.body, []byte(`"method":"initialize"`))
		if c.stdio && c.onMode(f.cfg.eras).bug == "" && c.runsOn(f.cfg.eras) && c.before == nil && !opens {
			cases = append(cases, c)
		}
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		err := f.ServeStdio(context.Background(), inR, outW)
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
					Error *wireError      `json:"error"`
				}
				if json.Unmarshal(line, &m) != nil {
					read <- fmt.Errorf("not JSON: %s", hostileShort(line))
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
				t.Fatalf("normal request %d (after %s) was not answered", i-1, cases[i-1].label())
			}
		}
		w := c.stdioWantOn(f.cfg.eras)
		if w.kind != "none" {
			want[key{id: w.id, code: w.code}]++
		}
		body := f.hostileBody(c)
		if _, err := inW.Write(append(body, '\n')); err != nil {
			t.Fatal(err)
		}
		if _, err := inW.Write(append(hostileProbe(fmt.Sprintf("probe-%d", i)), '\n')); err != nil {
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
			t.Errorf("normal request %d (after %s) was not answered", i, cases[i].label())
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
		if got := paramEqual(json.Number(c.body), c.header); got != c.equal {
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
		_, err := parseHostileCorpus("f.txt", c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.text, err, c.want)
		}
	}
	cases, err := parseHostileCorpus("f.txt", "# comment\n\n=== a\nrids: R-X\non: http\nbodyx: \\x00\\\\u0041\nheaderx: X-A: b\\r\\n\nwant: 400 -32700\nstdio: none\n")
	if err != nil || len(cases) != 1 {
		t.Fatalf("%v %v", cases, err)
	}
	c := cases[0]
	if string(c.body) != "\x00\\\\u0041" || c.headers[0].value != "b\r\n" || c.want.code != -32700 || c.stdioWant.kind != "none" || c.stdio {
		t.Errorf("parsed %+v", c)
	}
	cases, err = parseHostileCorpus("f.txt", "=== a\nrids: R-X\non: http\nera: modern both legacy\nbody: {}\nwant-both: 400 -32600\nmsg-both: m\nwant: 404 -32601\nid: 1\nmsg: x\nstdio-legacy: result\nbug-both: b\n")
	if err != nil || len(cases) != 1 {
		t.Fatalf("%v %v", cases, err)
	}
	c = cases[0]
	if b, m := c.wantOn(ErasBoth), c.wantOn(ErasModern); b.status != 400 || b.code != -32600 || b.id != "1" || b.msg != "m" || m.code != -32601 || m.msg != "x" {
		t.Errorf("want-both %+v, want %+v", b, m)
	}
	if l := c.wantOn(ErasLegacy); l.code != -32601 || c.stdioWantOn(ErasLegacy).kind != "result" || c.onMode(ErasBoth).bug != "b" || c.onMode(ErasLegacy).bug != "" {
		t.Errorf("legacy %+v, stdio %+v", l, c.stdioWantOn(ErasLegacy))
	}
}
