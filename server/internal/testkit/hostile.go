package testkit

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
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/legacy"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// hostileWant is what the server must answer to one hostile request.
type HostileWant struct {
	Status  int    // HTTP status (HTTP only)
	Kind    string // "error", "result", "none" (no message: 202 on HTTP) or "transport" (net/http answers, raw HTTP only)
	Code    int64  // JSON-RPC error code when kind is "error"
	Id      string // raw JSON of the echoed id; "" for no id
	Text    *string
	TextLen int // length of the first text block, when > 0
	IsError *bool
	Rtype   string // resultType, when set
	Msg     string // substring of the error message, when set
	// data and result are members the error's data or the result must
	// hold (JSON-equal); resultIs is the whole result.
	Data, Result map[string]json.RawMessage
	ResultIs     json.RawMessage
}

// hostileHeader is one header operation, applied after the standard
// headers are mirrored from the body: set (the first for a name replaces
// the mirrored value, later ones add a value) or delete.
type HostileHeader struct {
	Del         bool
	Name, Value string
}

// hostileCase is one row of the corpus.
type HostileCase struct {
	File          string // where it was read, "" for a generated case
	Line          int
	Name          string
	Rids          []string
	Http, Stdio   bool
	Body          []byte        // template, placeholders expanded at run time
	Gen           func() []byte // generated body (overrides body)
	Verb          string
	Host          string
	Headers       []HostileHeader
	NoMirror      bool
	Raw           string // a whole HTTP/1.1 request sent over TCP to a real server
	ContentLength *int64 // declared Content-Length, when it lies
	Chunked       bool   // no Content-Length: the body is streamed
	StdioOff      bool   // generated cases: HTTP only
	Want          HostileWant
	StdioWant     *HostileWant
	Calls         map[string]int64 // how often each counting handler must run
	StdioCalls    map[string]int64 // the same on stdio, when it differs
	Bug           string           // a known server bug: the case is skipped while it reproduces
	MaxDur        time.Duration    // the request must be answered within this
	// eras are the server modes the case runs on (nil: ErasModern and
	// ErasBoth); modeWant and modeStdio are the answers of a mode where
	// they differ (want-both, stdio-legacy, ...), made at the end of the
	// case from modeLines.
	Eras      []legacy.Eras
	ModeLines map[legacy.Eras][][2]string
	ModeWant  map[legacy.Eras]*HostileWant
	ModeStdio map[legacy.Eras]*HostileWant
	ModeBug   map[legacy.Eras]string           // bug-both: a known bug of one mode
	ModeCalls map[legacy.Eras]map[string]int64 // calls-both: the handler runs on one mode
	Before    [][]byte                         // stdio: lines sent first on the same stream, their answers ignored
}

// callsOn are the handler runs of the case's HTTP request on mode.
func (c *HostileCase) CallsOn(mode legacy.Eras) map[string]int64 {
	if m, ok := c.ModeCalls[mode]; ok {
		return m
	}
	return c.Calls
}

// onMode is the case as it runs on a server of mode: its bug is the
// mode's.
func (c *HostileCase) OnMode(mode legacy.Eras) *HostileCase {
	if b, ok := c.ModeBug[mode]; ok {
		cc := *c
		cc.Bug = b
		return &cc
	}
	return c
}

// hostileModes are the mode suffixes of the per-mode keys (want-both).
var HostileModes = map[string]legacy.Eras{"both": legacy.ErasBoth, "legacy": legacy.ErasLegacy}

// runsOn reports whether the case runs on a server of mode.
func (c *HostileCase) RunsOn(mode legacy.Eras) bool {
	if c.Eras == nil {
		return mode == legacy.ErasModern || mode == legacy.ErasBoth
	}
	return slices.Contains(c.Eras, mode)
}

// wantOn is the HTTP answer on a server of mode.
func (c *HostileCase) WantOn(mode legacy.Eras) HostileWant {
	if w := c.ModeWant[mode]; w != nil {
		return *w
	}
	return c.Want
}

// stdioWantOn is the stdio answer on a server of mode: stdio-<mode>, else
// the stdio answer of the case (want-<mode> is the HTTP answer only).
func (c *HostileCase) StdioWantOn(mode legacy.Eras) HostileWant {
	if w := c.ModeStdio[mode]; w != nil {
		return *w
	}
	if c.StdioWant != nil {
		return *c.StdioWant
	}
	return c.Want
}

// usesSession reports whether the case names a session placeholder.
func (c *HostileCase) UsesSession() bool {
	if bytes.Contains(c.Body, []byte("${SID")) || strings.Contains(c.Raw, "${SID") {
		return true
	}
	for _, h := range c.Headers {
		if strings.Contains(h.Value, "${SID") {
			return true
		}
	}
	return false
}

func (c *HostileCase) Label() string {
	if c.File != "" {
		return fmt.Sprintf("%s:%d %s", c.File, c.Line, c.Name)
	}
	return "generated " + c.Name
}

// loadHostileCorpus reads every testdata/hostile/*.txt file.
func LoadHostileCorpus(t testing.TB) []*HostileCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(RepoRoot(), "testdata", "hostile", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files in testdata/hostile: %v", err)
	}
	sort.Strings(files)
	var all []*HostileCase
	names := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cases, err := ParseHostileCorpus(filepath.Base(f), string(b))
		if err != nil {
			t.Fatalf("%v", err)
		}
		for _, c := range cases {
			if prev, dup := names[c.Name]; dup {
				t.Fatalf("%s: case name %q already used at %s", c.Label(), c.Name, prev)
			}
			names[c.Name] = c.Label()
		}
		all = append(all, cases...)
	}
	return all
}

// parseHostileCorpus parses one corpus file (see testdata/hostile/README.md).
func ParseHostileCorpus(file, text string) ([]*HostileCase, error) {
	var out []*HostileCase
	var c *HostileCase
	finish := func() error {
		if c == nil {
			return nil
		}
		switch {
		case c.Want.Kind == "":
			return fmt.Errorf("%s: no want line", c.Label())
		case c.Body == nil && c.Raw == "":
			return fmt.Errorf("%s: no body", c.Label())
		case len(c.Rids) == 0:
			return fmt.Errorf("%s: no rids line", c.Label())
		case c.Raw != "" && c.Stdio:
			return fmt.Errorf("%s: a raw HTTP request cannot go over stdio (add on: http)", c.Label())
		case c.Stdio && bytes.ContainsAny(c.Body, "\n"):
			return fmt.Errorf("%s: a body with a line feed cannot go over stdio as one line (add on: http)", c.Label())
		case c.Want.Kind == "transport" && c.Raw == "":
			return fmt.Errorf("%s: want transport needs a raw request", c.Label())
		case c.Stdio && c.UsesSession():
			return fmt.Errorf("%s: a session placeholder needs on: http", c.Label())
		case c.Before != nil && c.Http:
			return fmt.Errorf("%s: before lines need on: stdio", c.Label())
		}
		for mode, lines := range c.ModeLines {
			if !c.RunsOn(mode) {
				return fmt.Errorf("%s: answers for %v, which the case does not run on (era)", c.Label(), mode)
			}
			w := c.Want
			for _, kv := range lines {
				if kv[0] == "stdio-id" {
					sw := c.ModeStdio[mode]
					if sw == nil {
						return fmt.Errorf("%s: stdio-id-%v before stdio-%v", c.Label(), mode, mode)
					}
					if err := ApplyHostileWant(sw, "id", kv[1]); err != nil {
						return err
					}
					continue
				}
				if kv[0] == "stdio" {
					sw := c.StdioWantOn(legacy.ErasModern)
					sw.Status = 0
					if err := ParseHostileKind(&sw, strings.TrimSpace(kv[1])); err != nil {
						return err
					}
					if c.ModeStdio == nil {
						c.ModeStdio = map[legacy.Eras]*HostileWant{}
					}
					c.ModeStdio[mode] = &sw
					continue
				}
				if err := ApplyHostileWant(&w, kv[0], kv[1]); err != nil {
					return err
				}
			}
			if c.ModeWant == nil {
				c.ModeWant = map[legacy.Eras]*HostileWant{}
			}
			c.ModeWant[mode] = &w
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
			c = &HostileCase{File: file, Line: n + 1, Name: strings.TrimSpace(name), Http: true, Stdio: true, Want: HostileWant{}}
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
		if base, mode, ok := HostileModeKey(key); ok {
			// Checked now, applied at the end of the case (onto its want).
			w := HostileWant{}
			switch base {
			case "stdio":
				if err := ParseHostileKind(&w, strings.TrimSpace(val)); err != nil {
					return nil, bad(err)
				}
			case "stdio-id":
				if err := ApplyHostileWant(&w, "id", val); err != nil {
					return nil, bad(err)
				}
			default:
				if err := ApplyHostileWant(&w, base, val); err != nil {
					return nil, bad(err)
				}
			}
			if c.ModeLines == nil {
				c.ModeLines = map[legacy.Eras][][2]string{}
			}
			c.ModeLines[mode] = append(c.ModeLines[mode], [2]string{base, val})
			continue
		}
		switch key {
		case "rids":
			c.Rids = strings.Fields(val)
		case "on":
			c.Http, c.Stdio = false, false
			for _, tr := range strings.Fields(val) {
				switch tr {
				case "http":
					c.Http = true
				case "stdio":
					c.Stdio = true
				default:
					return nil, bad(fmt.Errorf("unknown transport %q", tr))
				}
			}
		case "body":
			c.Body = []byte(val)
		case "bodyx":
			b, err := UnescapeHostile(val, false)
			if err != nil {
				return nil, bad(err)
			}
			c.Body = b
		case "verb":
			c.Verb = val
		case "host":
			c.Host = val
		case "header", "headerx":
			if key == "headerx" {
				b, err := UnescapeHostile(val, true)
				if err != nil {
					return nil, bad(err)
				}
				val = string(b)
			}
			name, value, ok := strings.Cut(val, ":")
			if !ok {
				return nil, bad(fmt.Errorf("want Name: value"))
			}
			c.Headers = append(c.Headers, HostileHeader{Name: name, Value: strings.TrimPrefix(value, " ")})
		case "noheader":
			c.Headers = append(c.Headers, HostileHeader{Del: true, Name: val})
		case "nomirror":
			c.NoMirror = true
		case "raw":
			b, err := UnescapeHostile(val, true)
			if err != nil {
				return nil, bad(err)
			}
			c.Raw = string(b)
		case "content-length":
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				return nil, bad(err)
			}
			c.ContentLength = &n
		case "chunked":
			c.Chunked = true
		case "want", "id", "text", "iserror", "type", "msg", "data", "result", "result-is":
			if err := ApplyHostileWant(&c.Want, key, val); err != nil {
				return nil, bad(err)
			}
		case "stdio":
			w := c.Want // the id and details carry over unless overridden
			w.Status = 0
			if err := ParseHostileKind(&w, strings.TrimSpace(val)); err != nil {
				return nil, bad(err)
			}
			c.StdioWant = &w
		case "stdio-id":
			if c.StdioWant == nil {
				return nil, bad(fmt.Errorf("stdio-id before stdio"))
			}
			if err := ApplyHostileWant(c.StdioWant, "id", val); err != nil {
				return nil, bad(err)
			}
		case "era":
			c.Eras = nil
			for _, m := range strings.Fields(val) {
				e, ok := map[string]legacy.Eras{"modern": legacy.ErasModern, "both": legacy.ErasBoth, "legacy": legacy.ErasLegacy}[m]
				if !ok {
					return nil, bad(fmt.Errorf("unknown era %q (modern, both, legacy)", m))
				}
				c.Eras = append(c.Eras, e)
			}
			if len(c.Eras) == 0 {
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
				c.Calls = m
			case "stdio-calls":
				c.StdioCalls = m
			default:
				if c.ModeCalls == nil {
					c.ModeCalls = map[legacy.Eras]map[string]int64{}
				}
				c.ModeCalls[HostileModes[strings.TrimPrefix(key, "calls-")]] = m
			}
		case "before":
			c.Before = append(c.Before, []byte(val))
		case "bug":
			c.Bug = val
		case "bug-both", "bug-legacy":
			if c.ModeBug == nil {
				c.ModeBug = map[legacy.Eras]string{}
			}
			c.ModeBug[HostileModes[strings.TrimPrefix(key, "bug-")]] = val
		case "maxms":
			n, err := strconv.Atoi(val)
			if err != nil {
				return nil, bad(err)
			}
			c.MaxDur = time.Duration(n) * time.Millisecond
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
func HostileModeKey(key string) (string, legacy.Eras, bool) {
	i := strings.LastIndexByte(key, '-')
	if i < 0 {
		return "", 0, false
	}
	mode, ok := HostileModes[key[i+1:]]
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
func ApplyHostileWant(w *HostileWant, key, val string) error {
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
		*w = HostileWant{Status: st, Id: w.Id}
		return ParseHostileKind(w, f[1])
	case "id":
		if val == "-" {
			w.Id = ""
			return nil
		}
		if !json.Valid([]byte(val)) {
			return fmt.Errorf("id %q is not JSON", val)
		}
		w.Id = val
	case "text":
		s := val
		w.Text = &s
	case "iserror":
		b, err := strconv.ParseBool(val)
		if err != nil {
			return err
		}
		w.IsError = &b
	case "type":
		w.Rtype = val
	case "msg":
		w.Msg = val
	case "data", "result":
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(val), &m); err != nil || m == nil {
			return fmt.Errorf("want a JSON object, got %q", val)
		}
		if key == "data" {
			w.Data = m
		} else {
			w.Result = m
		}
	case "result-is":
		if !json.Valid([]byte(val)) {
			return fmt.Errorf("%q is not JSON", val)
		}
		w.ResultIs = json.RawMessage(val)
	default:
		return fmt.Errorf("not an answer key")
	}
	return nil
}

func ParseHostileKind(w *HostileWant, s string) error {
	switch s {
	case "result", "none", "transport":
		w.Kind, w.Code = s, 0
		return nil
	}
	code, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("want a JSON-RPC code, result, none or transport, got %q", s)
	}
	w.Kind, w.Code = "error", code
	return nil
}

// unescapeHostile decodes \xHH escapes and, when control is set, \r, \n,
// \t and \\ too. Any other backslash is kept, so JSON escapes in a body
// (\", \u00e9) pass through.
func UnescapeHostile(s string, control bool) ([]byte, error) {
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
type HostileFixture struct {
	*server.Server
	H       http.Handler
	Counts  map[string]*atomic.Int64
	Vars    *strings.Replacer // ${...} placeholders
	VarArgs []string          // what vars replaces, old and new in turn
	Clock   *HostileClock     // the clock of the legacy sessions
}

var HostileKey = server.StateKey{ID: 7, Secret: []byte("hostile-corpus-state-key-0123456789abcdef")}

const HostileMeta = `{"io.modelcontextprotocol/protocolVersion":"` + Rev + `","io.modelcontextprotocol/clientCapabilities":{}}`

const HostileElicitMeta = `{"io.modelcontextprotocol/protocolVersion":"` + Rev + `","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`

// hostileOptions authenticate the principal named by X-User; "!deny" is
// refused.
var HostileOptions = streamhttp.Options{Authenticate: func(r *http.Request) (string, error) {
	u := r.Header.Get("X-User")
	if u == "!deny" {
		return "", fmt.Errorf("denied")
	}
	return u, nil
}}

// Eras is what the fixture's server serves.
func (f *HostileFixture) Eras() legacy.Eras { return EraOf(f.Server).Eras() }

func NewHostileFixture(t testing.TB, opts ...any) *HostileFixture {
	t.Helper()
	clock := &HostileClock{}
	// The clock goes first: a Legacy option among opts keeps it.
	f := &HostileFixture{Server: Fixture(t, append(append([]any{server.WithStateKeys(HostileKey)}, opts...), Clock(clock.Now))...), Counts: map[string]*atomic.Int64{}}
	f.AddTools(t, f.Server)
	f.H = Handler(f.Server, HostileOptions)
	f.Clock = clock
	if f.Eras() == legacy.ErasLegacy {
		// ErasLegacy cannot mint the sealed states (they come from modern
		// requests): they are minted by an ErasBoth server with the same
		// key.
		m := NewHostileFixture(t, Eras(legacy.ErasBoth))
		f.Vars, f.VarArgs = m.Vars, m.VarArgs
		return f
	}
	// Sealed states for the MRTR cases, minted through the transport.
	mint := func(h http.Handler, user string) string {
		t.Helper()
		body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":` + HostileElicitMeta + `,"name":"mrtr_a"}}`)
		rec := Post(t, h, body, func(r *http.Request) {
			if user != "" {
				r.Header.Set("X-User", user)
			}
		})
		w := Single(t, rec)
		st, ok := w.Result["requestState"].(string)
		if !ok {
			t.Fatalf("minting a requestState: %s", w.Raw)
		}
		return st
	}
	st := mint(f.H, "")
	alice := mint(f.H, "alice")
	// An expired state: sealed with the same key by a server whose states
	// live 1 ms.
	short := &HostileFixture{Server: NewServer(t, server.WithStateKeys(HostileKey), server.WithStateLimits(time.Millisecond, 0)), Counts: map[string]*atomic.Int64{}}
	short.AddTools(t, short.Server)
	expired := mint(Handler(short.Server, HostileOptions), "")
	// A state sealed by a server with another key.
	foreign := &HostileFixture{Server: NewServer(t, server.WithStateKeys(server.StateKey{ID: 7, Secret: []byte("another-server-entirely-0123456789abcdef")})), Counts: map[string]*atomic.Int64{}}
	foreign.AddTools(t, foreign.Server)
	other := mint(Handler(foreign.Server, HostileOptions), "")
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
	f.VarArgs = []string{
		"${META}", HostileMeta,
		"${EMETA}", HostileElicitMeta,
		"${REV}", Rev,
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
		"${STATE_HUGE}", st + strings.Repeat("A", server.DefaultMaxStateBytes),
		"${STATE_CRLF}", st[:10] + `\r\n` + st[10:],
	}
	f.Vars = strings.NewReplacer(f.VarArgs...)
	return f
}

// addTools registers the counting tools on s.
func (f *HostileFixture) AddTools(t testing.TB, s *server.Server) {
	t.Helper()
	count := func(name string) *atomic.Int64 {
		if f.Counts[name] == nil {
			f.Counts[name] = new(atomic.Int64)
		}
		return f.Counts[name]
	}
	hdrSchema := `{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"count":{"type":"integer","x-mcp-header":"Count"},
		"flag":{"type":"boolean","x-mcp-header":"Flag"},
		"note":{"type":"string"}}}`
	for _, name := range []string{"safe_tool", "evil_tool"} {
		n := count(name)
		AddTool(t, s, `{"name":"`+name+`","inputSchema":`+hdrSchema+`}`, func(_ context.Context, _ *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
			n.Add(1)
			// Decoded as handlers commonly do, with encoding/json.
			var a struct {
				Region string
				Count  json.Number
			}
			if err := json.Unmarshal(args, &a); err != nil {
				return nil, err
			}
			return server.TextResult(fmt.Sprintf("region=%s count=%s", a.Region, a.Count)), nil
		})
	}
	strict := count("strict_tool")
	AddTool(t, s, `{"name":"strict_tool","inputSchema":{"type":"object","properties":{"n":{"type":"integer","minimum":0,"maximum":10}},"required":["n"],"additionalProperties":false}}`,
		func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
			strict.Add(1)
			return server.TextResult("strict ok"), nil
		})
	num := count("num_tool")
	AddTool(t, s, `{"name":"num_tool","inputSchema":{"type":"object","properties":{"x":{"type":"number"}}}}`,
		func(_ context.Context, _ *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
			num.Add(1)
			if len(args) > 64 {
				return server.TextResult(fmt.Sprintf("%d bytes", len(args))), nil
			}
			return server.TextResult(string(args)), nil
		})
	// range_tool takes the general validator (minimum), the others below
	// too; sleep_tool and nest_tool decode as handlers commonly do.
	rng := count("range_tool")
	AddTool(t, s, `{"name":"range_tool","inputSchema":{"type":"object","properties":{"a":{"type":"array","items":{"type":"number","minimum":0}}}}}`,
		func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
			rng.Add(1)
			return server.TextResult("range ok"), nil
		})
	sleep := count("sleep_tool")
	AddTool(t, s, `{"name":"sleep_tool","inputSchema":{"type":"object","properties":{"seconds":{"type":"integer","minimum":0},"kind":{"enum":["a","b"]}}}}`,
		func(_ context.Context, _ *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
			sleep.Add(1)
			var a struct {
				Seconds int    `json:"seconds"`
				Kind    string `json:"kind"`
			}
			if err := json.Unmarshal(args, &a); err != nil {
				return nil, err
			}
			return server.TextResult(fmt.Sprintf("seconds=%d kind=%s", a.Seconds, a.Kind)), nil
		})
	nest := count("nest_tool")
	AddTool(t, s, `{"name":"nest_tool","inputSchema":{"type":"object","properties":{
		"loc":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}},
		"items":{"type":"array","items":{"type":"object","properties":{"qty":{"type":"integer","minimum":1}}}}}}}`,
		func(_ context.Context, _ *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
			nest.Add(1)
			var a struct {
				Loc struct {
					Zone string `json:"zone"`
				} `json:"loc"`
			}
			if err := json.Unmarshal(args, &a); err != nil {
				return nil, err
			}
			return server.TextResult("zone=" + a.Loc.Zone), nil
		})
	both := count("both_tool")
	AddTool(t, s, `{"name":"both_tool","inputSchema":{"type":"object","properties":{"a":{"type":"integer"},"A":{"type":"string"},"id":{"type":"string"}},"patternProperties":{"^I":{"type":"string"}}}}`,
		func(_ context.Context, _ *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
			both.Add(1)
			return server.TextResult(string(args)), nil
		})
	// route_tool: an x-mcp-header property with an enum, and a pattern
	// that matches its case variants too.
	route := count("route_tool")
	AddTool(t, s, `{"name":"route_tool","inputSchema":{"type":"object","properties":{"region":{"type":"string","enum":["us"],"x-mcp-header":"Region"}},"patternProperties":{"^[A-Za-z]+$":{"type":"string"}}}}`,
		func(_ context.Context, _ *server.Request, args json.RawMessage) (*protocol.CallToolResult, error) {
			route.Add(1)
			var a struct {
				Region string `json:"region"`
			}
			if err := json.Unmarshal(args, &a); err != nil {
				return nil, err
			}
			return server.TextResult("region=" + a.Region), nil
		})
	// unique_tool: uniqueItems and an enum of an array and an object,
	// which the runtime checks itself (valueCheck).
	unique := count("unique_tool")
	AddTool(t, s, `{"name":"unique_tool","inputSchema":{"type":"object","properties":{"tags":{"type":"array","uniqueItems":true},"pick":{"enum":[[1,2],{"a":1}]}}}}`,
		func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
			unique.Add(1)
			return server.TextResult("unique ok"), nil
		})
	re := count("regex_tool")
	AddTool(t, s, `{"name":"regex_tool","inputSchema":{"type":"object","properties":{"s":{"type":"string","pattern":"^(a+)+$"}}}}`,
		func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
			re.Add(1)
			return server.TextResult("matched"), nil
		})
	for _, name := range []string{"mrtr_a", "mrtr_b"} {
		n := count(name)
		AddTool(t, s, `{"name":"`+name+`","inputSchema":{"type":"object"}}`, func(_ context.Context, r *server.Request, _ json.RawMessage) (*protocol.CallToolResult, error) {
			n.Add(1)
			if resp, ok := r.InputResponse("name"); ok && r.State() != nil {
				if er, ok := resp.Value.(*protocol.ElicitResult); ok && er.Action == protocol.ElicitResultActionAccept {
					return server.TextResult("done " + string(r.State())), nil
				}
			}
			return nil, r.AskInput(map[string]protocol.InputRequest{"name": server.ElicitForm("Name?", map[string]protocol.PrimitiveSchemaDefinition{"name": server.StringField("")}, "name")}, []byte("st:"+r.Principal))
		})
	}
}

func (f *HostileFixture) Snapshot() map[string]int64 {
	m := make(map[string]int64, len(f.Counts))
	for k, v := range f.Counts {
		m[k] = v.Load()
	}
	return m
}

// hostileCheck collects the failures of one case, so that a case marked
// with a known bug can be skipped rather than failed.
type HostileCheck struct {
	Fails []string
}

func (k *HostileCheck) Errorf(format string, args ...any) {
	k.Fails = append(k.Fails, fmt.Sprintf(format, args...))
}

func (k *HostileCheck) Done(t *testing.T, c *HostileCase) {
	t.Helper()
	if len(k.Fails) == 0 {
		if c.Bug != "" {
			t.Logf("known bug no longer reproduces, drop its bug line: %s", c.Bug)
		}
		return
	}
	msg := strings.Join(k.Fails, "\n")
	if c.Bug != "" {
		t.Skipf("KNOWN BUG (%s): %s\n  %s", strings.Join(c.Rids, " "), c.Bug, msg)
	}
	t.Errorf("%s [%s]:\n  %s", c.Label(), strings.Join(c.Rids, " "), msg)
}

// checkCounts compares the handler runs of one case with its calls line;
// evil_tool must never run.
func (f *HostileFixture) CheckCounts(k *HostileCheck, calls map[string]int64, before map[string]int64) {
	after := f.Snapshot()
	for name, want := range calls {
		if _, ok := after[name]; !ok {
			k.Errorf("calls: no counting handler %q", name)
			continue
		}
		if got := after[name] - before[name]; got != want {
			k.Errorf("handler %s ran %d times, want %d", name, got, want)
		}
	}
	if d := after["evil_tool"] - before["evil_tool"]; d != 0 {
		k.Errorf("SMUGGLED: evil_tool ran %d times", d)
	}
}

// checkMessage compares one response with the wanted answer.
func CheckHostileMessage(k *HostileCheck, w HostileWant, msg []byte) {
	if w.Kind == "none" {
		k.Errorf("want no message, got %s", HostileShort(msg))
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
		Error *WireError `json:"error"`
	}
	if err := json.Unmarshal(msg, &m); err != nil {
		k.Errorf("answer is not a JSON-RPC message (%v): %s", err, HostileShort(msg))
		return
	}
	if string(m.JSONRPC) != `"2.0"` {
		k.Errorf("R-BASE-02: jsonrpc %s", m.JSONRPC)
	}
	if got := string(m.ID); got != w.Id {
		k.Errorf("R-BASE-07: id %q, want %q (\"\" = none): %s", got, w.Id, HostileShort(msg))
	}
	switch w.Kind {
	case "error":
		if m.Error == nil {
			k.Errorf("want error %d, got %s", w.Code, HostileShort(msg))
			return
		}
		if m.Error.Code != w.Code {
			k.Errorf("code %d, want %d: %s", m.Error.Code, w.Code, HostileShort(msg))
		}
		if w.Msg != "" && !strings.Contains(m.Error.Message, w.Msg) {
			k.Errorf("message %q does not contain %q", m.Error.Message, w.Msg)
		}
		if m.Error.Code == protocol.CodeParseError && m.ID != nil {
			k.Errorf("R-BASE-07: parse error with an id")
		}
	case "result":
		if m.Result == nil {
			k.Errorf("want a result, got %s", HostileShort(msg))
			return
		}
		text := ""
		if len(m.Result.Content) > 0 {
			text = m.Result.Content[0].Text
		}
		if w.Text != nil && text != *w.Text {
			k.Errorf("text %q, want %q", HostileShort([]byte(text)), *w.Text)
		}
		if w.TextLen > 0 && len(text) != w.TextLen {
			k.Errorf("text of %d bytes, want %d", len(text), w.TextLen)
		}
		isErr := m.Result.IsError != nil && *m.Result.IsError
		if w.IsError != nil && isErr != *w.IsError {
			k.Errorf("isError %v, want %v: %s", isErr, *w.IsError, HostileShort(msg))
		}
		if w.Rtype != "" && m.Result.ResultType != w.Rtype {
			k.Errorf("resultType %q, want %q", m.Result.ResultType, w.Rtype)
		}
	}
	if w.Data == nil && w.Result == nil && w.ResultIs == nil {
		return
	}
	var raw struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Data json.RawMessage `json:"data"`
		} `json:"error"`
	}
	_ = json.Unmarshal(msg, &raw)
	if w.ResultIs != nil && !SameJSON(raw.Result, w.ResultIs) {
		k.Errorf("result %s, want %s", HostileShort(raw.Result), w.ResultIs)
	}
	check := func(what string, obj json.RawMessage, want map[string]json.RawMessage) {
		var got map[string]json.RawMessage
		_ = json.Unmarshal(obj, &got)
		for name, v := range want {
			if !SameJSON(got[name], v) {
				k.Errorf("%s.%s is %s, want %s: %s", what, name, got[name], v, HostileShort(msg))
			}
		}
	}
	if w.Data != nil {
		var data json.RawMessage
		if raw.Error != nil {
			data = raw.Error.Data
		}
		check("error.data", data, w.Data)
	}
	if w.Result != nil {
		check("result", raw.Result, w.Result)
	}
}

// sameJSON reports whether two JSON texts are the same value.
func SameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func HostileShort(b []byte) string {
	if len(b) > 400 {
		return fmt.Sprintf("%s…(%d bytes)", b[:400], len(b))
	}
	return string(b)
}

// hostileBody expands the placeholders of a case's body.
func (f *HostileFixture) HostileBody(c *HostileCase) []byte {
	if c.Gen != nil {
		return c.Gen()
	}
	return []byte(f.Vars.Replace(string(c.Body)))
}

// hostileProbe is the normal request sent after every hostile one.
func HostileProbe(id string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":"` + id + `","method":"tools/list","params":{"_meta":` + HostileMeta + `}}`)
}

// onlyReader hides the type of its reader, so that net/http cannot learn
// the body's length.
type OnlyReader struct{ R io.Reader }

func (o OnlyReader) Read(p []byte) (int, error) { return o.R.Read(p) }

// setHostileHeaders sets on hdr the headers of c: those mirror derives
// from body (unless c.noMirror), then c's own headers in order,
// with the fixture's variables replaced (a first value replaces, a
// repeated name adds a value, a deletion removes the header).
func (f *HostileFixture) SetHostileHeaders(c *HostileCase, hdr http.Header, body []byte) {
	if !c.NoMirror {
		for k, v := range Mirror(body) {
			hdr[k] = v
		}
	}
	set := map[string]bool{}
	for _, h := range c.Headers {
		name := http.CanonicalHeaderKey(h.Name)
		switch {
		case h.Del:
			delete(hdr, name)
		case !set[name]:
			set[name] = true
			hdr[name] = []string{f.Vars.Replace(h.Value)}
		default:
			hdr[name] = append(hdr[name], f.Vars.Replace(h.Value))
		}
	}
}

// serveHostileHTTP sends one case to the in-process handler.
func (f *HostileFixture) ServeHostileHTTP(c *HostileCase, body []byte) (*httptest.ResponseRecorder, time.Duration) {
	verb := c.Verb
	if verb == "" {
		verb = http.MethodPost
	}
	r := httptest.NewRequest(verb, "/mcp", bytes.NewReader(body))
	r.Host = Loopback
	if c.Host != "" {
		r.Host = f.Vars.Replace(c.Host)
		if c.Host == "-" {
			r.Host = ""
		}
	}
	r.Header.Set("Content-Type", "application/json")
	f.SetHostileHeaders(c, r.Header, body)
	if c.ContentLength != nil {
		r.ContentLength = *c.ContentLength
	}
	if c.Chunked {
		r.Body = io.NopCloser(OnlyReader{bytes.NewReader(body)})
		r.ContentLength = -1
		r.TransferEncoding = []string{"chunked"}
	}
	w := httptest.NewRecorder()
	start := time.Now()
	f.H.ServeHTTP(w, r)
	return w, time.Since(start)
}

// serveHostileRaw writes a raw request to a real server and reads its
// answer.
func (f *HostileFixture) ServeHostileRaw(t *testing.T, srv *httptest.Server, c *HostileCase, body []byte) (*http.Response, []byte, time.Duration) {
	t.Helper()
	raw := strings.NewReplacer("${BODY}", string(body), "${LEN}", strconv.Itoa(len(body)), "${HEXLEN}", strconv.FormatInt(int64(len(body)), 16)).Replace(c.Raw)
	raw = f.Vars.Replace(raw)
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
func (f *HostileFixture) RunHostileHTTP(t *testing.T, srv *httptest.Server, c *HostileCase) {
	f = f.ForCase(t, c)
	want := c.WantOn(f.Eras())
	body := f.HostileBody(c)
	before := f.Snapshot()
	k := &HostileCheck{}
	var (
		status int
		ctype  string
		got    []byte
		dur    time.Duration
	)
	var sid string
	if c.Raw != "" {
		resp, b, d := f.ServeHostileRaw(t, srv, c, body)
		status, ctype, got, dur, sid = resp.StatusCode, resp.Header.Get("Content-Type"), b, d, resp.Header.Get(legacy.HeaderSessionID)
	} else {
		rec, d := f.ServeHostileHTTP(c, body)
		status, ctype, got, dur, sid = rec.Code, rec.Header().Get("Content-Type"), rec.Body.Bytes(), d, rec.Header().Get(legacy.HeaderSessionID)
	}
	if sid != "" {
		f.CheckMintedSession(t, k, c, body, status, got, sid)
	}
	if status != want.Status {
		k.Errorf("status %d, want %d: %s", status, want.Status, HostileShort(got))
	}
	switch want.Kind {
	case "transport":
		// net/http refused the request before the handler: nothing more.
	case "none":
		if len(got) != 0 {
			k.Errorf("want no body, got %s", HostileShort(got))
		}
	default:
		if ctype != "application/json" {
			k.Errorf("Content-Type %q, want application/json", ctype)
		}
		CheckHostileMessage(k, want, got)
	}
	f.CheckCounts(k, c.CallsOn(f.Eras()), before)
	if max := c.Limit(); dur > max {
		k.Errorf("answered in %v, more than %v", dur, max)
	}
	// The next normal request is served (checked before a known bug
	// skips the case).
	if c.Raw != "" {
		probe := &HostileCase{Raw: "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nMcp-Protocol-Version: " + Rev + "\r\nMcp-Method: tools/list\r\nContent-Length: ${LEN}\r\nConnection: close\r\n\r\n${BODY}"}
		if f.Eras() == legacy.ErasLegacy {
			probe.Raw = "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${LEN}\r\nConnection: close\r\n\r\n${BODY}"
		}
		resp, b, _ := f.ServeHostileRaw(t, srv, probe, f.Probe("probe"))
		f.CheckProbe(t, resp.StatusCode, b, "probe")
	} else {
		rec := Post(t, f.H, f.Probe("probe"), nil)
		f.CheckProbe(t, rec.Code, rec.Body.Bytes(), "probe")
	}
	k.Done(t, c.OnMode(f.Eras()))
}

func (c *HostileCase) Limit() time.Duration {
	if c.MaxDur > 0 {
		return c.MaxDur
	}
	return 10 * time.Second
}

func (f *HostileFixture) CheckProbe(t *testing.T, status int, body []byte, id string) {
	t.Helper()
	if f.Eras() == legacy.ErasLegacy {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if status != http.StatusOK || json.Unmarshal(body, &m) != nil || string(m.ID) != `"`+id+`"` || string(m.Result) != "{}" {
			t.Errorf("the next normal request (ping) was not served: %d %s", status, HostileShort(body))
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
		t.Errorf("the next normal request was not served: %d %s", status, HostileShort(body))
	}
}

// runHostileStdio runs one case over stdio: its body as one line, then the
// probe, on the same stream.
func (f *HostileFixture) RunHostileStdio(t *testing.T, c *HostileCase) {
	want := c.StdioWantOn(f.Eras())
	body := f.HostileBody(c)
	before := f.Snapshot()
	k := &HostileCheck{}
	in := make([]byte, 0, len(body)+256)
	for _, l := range c.Before {
		in = append(append(in, f.Vars.Replace(string(l))...), '\n')
	}
	in = append(append(append(in, body...), '\n'), f.Probe("probe")...)
	in = append(in, '\n')
	var out bytes.Buffer
	start := time.Now()
	if err := ServeStdio(context.Background(), f.Server, bytes.NewReader(in), &out); err != nil {
		t.Fatalf("ServeStdio: %v", err)
	}
	dur := time.Since(start)
	var msgs [][]byte
	probes := 0
	for _, l := range bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		CheckStdioLine(t, string(l)) // one JSON-RPC message per line, never a request
		var probe struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(l, &probe) == nil && string(probe.ID) == `"probe"` {
			f.CheckProbe(t, http.StatusOK, l, "probe")
			probes++
			continue
		}
		if c.Before != nil && bytes.HasPrefix(probe.ID, []byte(`"before`)) {
			continue // the answer to a before line
		}
		msgs = append(msgs, l)
	}
	if probes != 1 {
		t.Errorf("the next normal request got %d answers, want 1", probes)
	}
	switch {
	case want.Kind == "none" && len(msgs) == 0:
	case want.Kind == "none":
		k.Errorf("want no message, got %s", HostileShort(msgs[0]))
	case len(msgs) != 1:
		k.Errorf("%d messages, want 1", len(msgs))
	default:
		CheckHostileMessage(k, want, msgs[0])
	}
	calls := c.Calls
	if c.StdioCalls != nil {
		calls = c.StdioCalls
	}
	f.CheckCounts(k, calls, before)
	if max := c.Limit(); dur > max {
		k.Errorf("answered in %v, more than %v", dur, max)
	}
	k.Done(t, c.OnMode(f.Eras()))
}

// generatedHostileCases are the inputs too large to keep on disk.
func GeneratedHostileCases() []*HostileCase {
	wrap := func(member string) []byte { // a tools/list request with an extra top-level member
		return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":` + HostileMeta + `},"x":` + member + `}`)
	}
	call := func(tool, args string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":` + HostileMeta + `,"name":"` + tool + `","arguments":` + args + `}}`)
	}
	nest := func(n int, open, close, inner string) string {
		return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
	}
	// pad grows a tools/list request with white space to exactly n bytes.
	pad := func(n int) []byte {
		b := HostileProbe("big")
		return append(b, bytes.Repeat([]byte(" "), n-len(b))...)
	}
	// The decode limits of the server (WithDecodeLimits): nesting, string
	// length and object members, each tested at and over its value.
	lim := server.DefaultDecodeLimits()
	maxDepth := lim.MaxDepth
	if maxDepth <= 0 {
		maxDepth = protocol.DefaultMaxDepth
	}
	maxString, maxMembers := lim.MaxStringBytes, lim.MaxMembers
	// The request object is level 1, params 2, arguments 3: this many
	// arrays in arguments reach the limit exactly.
	atDepth := `{"y":` + nest(maxDepth-3, "[", "]", "") + `}`
	array := `{"y":[` + strings.Repeat("0,", 999999) + `0]}`
	atValues := `{"y":[` + strings.Repeat("0,", server.DefaultMaxArgumentValues-3) + `0]}` // the object, y and its elements
	members := func(n int) string { return ObjectOf(n, func(i int) string { return fmt.Sprintf(`"k%d":0`, i) }) }
	size := func(s string) string { return fmt.Sprintf("%d bytes", len(s)) }
	// Bounds against a hang, not timings: a shared CI machine under -race
	// is slow. That these inputs are refused as the limit is crossed, not
	// after reading them through, is checked by protocol's limit tests.
	fast := 5 * time.Second  // what must not be parsed through
	slow := 30 * time.Second // what must be parsed through, under -race on a busy machine
	idErr := func(code int64, id string) HostileWant {
		return HostileWant{Status: (&server.Error{Code: code}).HTTPStatus(), Kind: "error", Code: code, Id: id}
	}
	result := func(text string) HostileWant {
		return HostileWant{Status: http.StatusOK, Kind: "result", Id: "1", Text: &text}
	}
	yes := true
	toolErr := func(text string) HostileWant {
		return HostileWant{Status: http.StatusOK, Kind: "result", Id: "1", Text: &text, IsError: &yes}
	}
	cases := []*HostileCase{
		// Deep nesting: refused at the nesting limit (DefaultDecodeLimits,
		// within protocol.DefaultMaxDepth) without parsing the rest, and
		// fast (no recursion 100,000 deep).
		{Name: "deep/100000 arrays in an ignored member", Rids: []string{"R-BASE-07", "WithDecodeLimits"},
			Gen:  func() []byte { return wrap(nest(100000, "[", "]", "")) },
			Want: idErr(protocol.CodeInvalidRequestError, ""), MaxDur: fast},
		{Name: "deep/100000 objects in an ignored member", Rids: []string{"R-BASE-07", "WithDecodeLimits"},
			Gen:  func() []byte { return wrap(nest(100000, `{"a":`, "}", "1")) },
			Want: idErr(protocol.CodeInvalidRequestError, ""), MaxDur: fast},
		{Name: "deep/100000 unclosed arrays (truncated too)", Rids: []string{"R-BASE-07", "WithDecodeLimits"},
			Gen:  func() []byte { return wrap(strings.Repeat("[", 100000)) },
			Want: idErr(protocol.CodeInvalidRequestError, ""), MaxDur: fast},
		{Name: "deep/100000 levels in a _meta vendor key", Rids: []string{"R-BASE-07", "R-META-01", "WithDecodeLimits"},
			Gen: func() []byte {
				return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"` + Rev + `","io.modelcontextprotocol/clientCapabilities":{},"x.example/v":` + nest(100000, "[", "]", "") + `}}}`)
			},
			Want: idErr(protocol.CodeInvalidRequestError, ""), MaxDur: fast},
		{Name: "deep/100000 levels in tool arguments", Rids: []string{"R-BASE-07", "WithDecodeLimits"}, Calls: map[string]int64{"safe_tool": 0},
			Gen:  func() []byte { return call("safe_tool", `{"note":`+nest(100000, "[", "]", "")+`}`) },
			Want: idErr(protocol.CodeInvalidRequestError, ""), MaxDur: fast},
		{Name: "deep/at the nesting limit is served", Rids: []string{"WithDecodeLimits"}, Calls: map[string]int64{"num_tool": 1},
			Gen:  func() []byte { return call("num_tool", atDepth) },
			Want: result(size(atDepth))},
		{Name: "deep/one level over the nesting limit is refused, id echoed", Rids: []string{"WithDecodeLimits", "R-BASE-07"}, Calls: map[string]int64{"num_tool": 0},
			Gen:  func() []byte { return call("num_tool", `{"y":`+nest(maxDepth-2, "[", "]", "")+`}`) },
			Want: idErr(protocol.CodeInvalidRequestError, "1")},

		// Numbers too long for any integer type.
		{Name: "numbers/10000-digit integer id", Rids: []string{"R-BASE-04", "R-BASE-07"},
			Gen: func() []byte {
				return []byte(`{"jsonrpc":"2.0","id":` + strings.Repeat("9", 10000) + `,"method":"tools/list","params":{"_meta":` + HostileMeta + `}}`)
			},
			Want: idErr(protocol.CodeInvalidRequestError, ""), MaxDur: fast},
		{Name: "numbers/10000-digit negative id", Rids: []string{"R-BASE-04", "R-BASE-07"},
			Gen: func() []byte {
				return []byte(`{"jsonrpc":"2.0","id":-` + strings.Repeat("1", 10000) + `,"method":"tools/list","params":{"_meta":` + HostileMeta + `}}`)
			},
			Want: idErr(protocol.CodeInvalidRequestError, ""), MaxDur: fast},
		{Name: "numbers/10000-digit number argument is over the number limit", Rids: []string{"R-SCHEMA-01", "R-TOOL-10", "WithNumberLimits"}, Calls: map[string]int64{"num_tool": 0},
			Gen:  func() []byte { return call("num_tool", `{"x":`+strings.Repeat("7", 10000)+`}`) },
			Want: toolErr(fmt.Sprintf("Invalid arguments: at /x: number has 10000 digits, more than the limit of %d", server.DefaultMaxNumberDigits)), MaxDur: fast},
		{Name: "numbers/a number of as many digits as the limit is served", Rids: []string{"R-SCHEMA-01", "WithNumberLimits"}, Calls: map[string]int64{"num_tool": 1},
			Gen:  func() []byte { return call("num_tool", `{"x":`+strings.Repeat("7", server.DefaultMaxNumberDigits)+`}`) },
			Want: result(size(`{"x":` + strings.Repeat("7", server.DefaultMaxNumberDigits) + `}`))},
		{Name: "numbers/a fraction one digit over the limit is refused", Rids: []string{"R-SCHEMA-01", "R-TOOL-10", "WithNumberLimits"}, Calls: map[string]int64{"num_tool": 0},
			Gen: func() []byte {
				return call("num_tool", `{"x":0.`+strings.Repeat("1", server.DefaultMaxNumberDigits)+`}`)
			},
			Want: toolErr(fmt.Sprintf("Invalid arguments: at /x: number has %d digits, more than the limit of %d", server.DefaultMaxNumberDigits+1, server.DefaultMaxNumberDigits))},
		{Name: "numbers/100000-digit integer against a maximum is refused by the number limit", Rids: []string{"R-SCHEMA-08", "R-TOOL-10", "WithNumberLimits"}, Calls: map[string]int64{"strict_tool": 0},
			Gen:  func() []byte { return call("strict_tool", `{"n":`+strings.Repeat("7", 100000)+`}`) },
			Want: toolErr(fmt.Sprintf("Invalid arguments: at /n: number has 100000 digits, more than the limit of %d", server.DefaultMaxNumberDigits)), MaxDur: fast},
		// 1e999999 costs the validator's big.Rat some 20 ms; 200 of them
		// fit in 2 KB.
		{Name: "numbers/200 numbers of 1e999999 against a minimum are refused at once", Rids: []string{"R-SCHEMA-08", "R-TOOL-10", "WithNumberLimits"}, Calls: map[string]int64{"range_tool": 0},
			Gen: func() []byte {
				return call("range_tool", `{"a":[`+strings.TrimSuffix(strings.Repeat("1e999999,", 200), ",")+`]}`)
			},
			Want: toolErr(fmt.Sprintf("Invalid arguments: at /a/0: number's exponent is beyond the limit of ±%d", server.DefaultMaxNumberExponent)), MaxDur: fast},
		{Name: "numbers/arguments over the validation work bound are refused before the validator", Rids: []string{"R-SCHEMA-08", "R-TOOL-10", "WithMaxValidationWork"}, Calls: map[string]int64{"range_tool": 0},
			Gen: func() []byte {
				return call("range_tool", `{"a":[`+strings.TrimSuffix(strings.Repeat("1e400,", server.DefaultMaxValidationWork/80), ",")+`]}`)
			},
			Want: HostileWant{Status: http.StatusOK, Kind: "result", Id: "1", IsError: &yes}, MaxDur: slow},
		{Name: "numbers/10000-digit integer against a maximum is a tool error", Rids: []string{"R-SCHEMA-01"}, Calls: map[string]int64{"strict_tool": 0},
			Gen:  func() []byte { return call("strict_tool", `{"n":`+strings.Repeat("7", 10000)+`}`) },
			Want: HostileWant{Status: http.StatusOK, Kind: "result", Id: "1", IsError: &yes}, MaxDur: fast},
		{Name: "numbers/10000-digit integer in an x-mcp-header argument is refused", Rids: []string{"R-HDR-08"}, Calls: map[string]int64{"safe_tool": 0},
			Gen:       func() []byte { return call("safe_tool", `{"count":`+strings.Repeat("7", 10000)+`}`) },
			Headers:   []HostileHeader{{Name: "Mcp-Param-Count", Value: strings.Repeat("7", 10000)}},
			Want:      idErr(protocol.CodeHeaderMismatchError, "1"),
			StdioWant: &HostileWant{Kind: "result", Id: "1", IsError: &yes}, StdioCalls: map[string]int64{"safe_tool": 0}, MaxDur: fast},

		// Huge values under the body limit.
		// The values of arguments (WithMaxArgumentValues: members and
		// elements, the arguments object included) are counted before
		// any is built.
		{Name: "huge/array of 1,000,000 elements is over the value limit", Rids: []string{"R-TOOL-10", "WithMaxArgumentValues"}, Calls: map[string]int64{"num_tool": 0},
			Gen:  func() []byte { return call("num_tool", array) },
			Want: toolErr(fmt.Sprintf("Invalid arguments: at /: more values (object members and array elements) than the limit of %d", server.DefaultMaxArgumentValues)), MaxDur: fast},
		{Name: "huge/arguments of exactly the value limit are served", Rids: []string{"R-SCHEMA-01", "WithMaxArgumentValues"}, Calls: map[string]int64{"num_tool": 1},
			Gen:  func() []byte { return call("num_tool", atValues) },
			Want: result(size(atValues)), MaxDur: slow},
		{Name: "huge/arguments of one value over the limit are refused", Rids: []string{"R-TOOL-10", "WithMaxArgumentValues"}, Calls: map[string]int64{"num_tool": 0},
			Gen:  func() []byte { return call("num_tool", `{"y":[0,`+atValues[len(`{"y":[`):]) },
			Want: toolErr(fmt.Sprintf("Invalid arguments: at /: more values (object members and array elements) than the limit of %d", server.DefaultMaxArgumentValues)), MaxDur: fast},
		{Name: "huge/arguments over the value limit are still held to their Mcp-Param-* headers", Rids: []string{"R-HDR-07", "WithMaxArgumentValues"}, Calls: map[string]int64{"safe_tool": 0},
			Gen: func() []byte {
				return call("safe_tool", `{"region":"eu","note":{"a":[[1],{"region":"us"}]},"y":`+array[len(`{"y":`):])
			},
			Headers:   []HostileHeader{{Name: "Mcp-Param-Region", Value: "us"}},
			Want:      idErr(protocol.CodeHeaderMismatchError, "1"),
			StdioWant: &HostileWant{Kind: "result", Id: "1", IsError: &yes}, StdioCalls: map[string]int64{"safe_tool": 0}, MaxDur: fast},
		{Name: "huge/arguments over the value limit with matching headers are a tool error", Rids: []string{"R-HDR-07", "WithMaxArgumentValues"}, Calls: map[string]int64{"safe_tool": 0},
			Gen: func() []byte {
				return call("safe_tool", `{"y":`+array[len(`{"y":`):len(array)-1]+`,"region":"us","count":7}`)
			},
			Headers: []HostileHeader{{Name: "Mcp-Param-Region", Value: "us"}, {Name: "Mcp-Param-Count", Value: "7"}},
			Want:    toolErr(fmt.Sprintf("Invalid arguments: at /: more values (object members and array elements) than the limit of %d", server.DefaultMaxArgumentValues)), MaxDur: fast},
		{Name: "huge/100,000 character string against a backtracking pattern", Rids: []string{"R-SCHEMA-08"}, Calls: map[string]int64{"regex_tool": 0},
			Gen:  func() []byte { return call("regex_tool", `{"s":"`+strings.Repeat("a", 100000)+`!"}`) },
			Want: HostileWant{Status: http.StatusOK, Kind: "result", Id: "1", IsError: &yes}, MaxDur: slow},
		{Name: "huge/1 MiB method name", Rids: []string{"R-HTTP-15"},
			Gen: func() []byte {
				return []byte(`{"jsonrpc":"2.0","id":1,"method":"` + strings.Repeat("m", min(1<<20, maxString)) + `","params":{"_meta":` + HostileMeta + `}}`)
			},
			Want: idErr(protocol.CodeMethodNotFoundError, "1")},

		// The body limit (DefaultMaxBodyBytes, 4 MiB) and the stdio line
		// limit (the same by default).
		{Name: "limit/body of exactly 4 MiB is served", Rids: []string{"R-HTTP-08"},
			Gen:  func() []byte { return pad(server.DefaultMaxBodyBytes) },
			Want: HostileWant{Status: http.StatusOK, Kind: "result", Id: `"big"`}},
		{Name: "limit/body of 4 MiB + 1 is 413", Rids: []string{"R-HTTP-08"},
			Gen:       func() []byte { return pad(server.DefaultMaxBodyBytes + 1) },
			Want:      idErr(protocol.CodeInvalidRequestError, ""),
			StdioWant: &HostileWant{Kind: "error", Code: protocol.CodeInvalidRequestError, Msg: "line too long"}},
		{Name: "limit/10 MiB body is 413, 10 MiB line is refused", Rids: []string{"R-HTTP-08", "R-STDIO-01"},
			Gen:       func() []byte { return pad(10 << 20) },
			Want:      idErr(protocol.CodeInvalidRequestError, ""),
			StdioWant: &HostileWant{Kind: "error", Code: protocol.CodeInvalidRequestError, Msg: "line too long"}},
		{Name: "limit/chunked body of 4 MiB + 1 without Content-Length is 413", Rids: []string{"R-HTTP-08"}, StdioOff: true, Chunked: true,
			Gen:  func() []byte { return pad(server.DefaultMaxBodyBytes + 1) },
			Want: idErr(protocol.CodeInvalidRequestError, "")},
		{Name: "limit/chunked 10 MiB body without Content-Length is 413", Rids: []string{"R-HTTP-08"}, StdioOff: true, Chunked: true,
			Gen:  func() []byte { return pad(10 << 20) },
			Want: idErr(protocol.CodeInvalidRequestError, "")},
		{Name: "limit/chunked body of exactly 4 MiB is served", Rids: []string{"R-HTTP-08"}, StdioOff: true, Chunked: true,
			Gen:  func() []byte { return pad(server.DefaultMaxBodyBytes) },
			Want: HostileWant{Status: http.StatusOK, Kind: "result", Id: `"big"`}},
	}
	if maxString > 0 && 3*maxString < server.DefaultMaxBodyBytes-1024 {
		text := strings.Repeat("x", maxString)
		cases = append(cases,
			&HostileCase{Name: "huge/a string at the string limit is echoed", Rids: []string{"R-BASE-03", "WithDecodeLimits"},
				Gen: func() []byte {
					return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":` + HostileMeta + `,"name":"echo","arguments":{"text":"` + text + `"}}}`)
				},
				Want: HostileWant{Status: http.StatusOK, Kind: "result", Id: "1", TextLen: maxString}, MaxDur: slow},
			&HostileCase{Name: "huge/three strings at the string limit are served", Rids: []string{"WithDecodeLimits", "R-HTTP-08"}, Calls: map[string]int64{"num_tool": 1},
				Gen:  func() []byte { return call("num_tool", `{"a":"`+text+`","b":"`+text+`","c":"`+text+`"}`) },
				Want: result(size(`{"a":"` + text + `","b":"` + text + `","c":"` + text + `"}`)), MaxDur: slow},
			&HostileCase{Name: "huge/a string one byte over the string limit is refused", Rids: []string{"WithDecodeLimits", "R-BASE-07"},
				Gen: func() []byte {
					return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":` + HostileMeta + `,"name":"echo","arguments":{"text":"` + text + `x"}}}`)
				},
				Want: idErr(protocol.CodeInvalidRequestError, "1"), MaxDur: fast},
			&HostileCase{Name: "huge/an escaped string over the string limit is refused", Rids: []string{"WithDecodeLimits", "R-BASE-07"},
				Gen: func() []byte {
					return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":` + HostileMeta + `,"name":"echo","arguments":{"text":"\u0041` + text + `"}}}`)
				},
				Want: idErr(protocol.CodeInvalidRequestError, "1"), MaxDur: fast},
			&HostileCase{Name: "huge/a member name over the string limit is refused", Rids: []string{"WithDecodeLimits", "R-BASE-07"}, Calls: map[string]int64{"num_tool": 0},
				Gen:  func() []byte { return call("num_tool", `{"`+text+`x":1}`) },
				Want: idErr(protocol.CodeInvalidRequestError, "1"), MaxDur: fast},
		)
	}
	if maxMembers > 0 && maxMembers*16 < server.DefaultMaxBodyBytes {
		cases = append(cases,
			&HostileCase{Name: "huge/half the member limit in arguments is served", Rids: []string{"WithDecodeLimits"}, Calls: map[string]int64{"num_tool": 1},
				Gen:  func() []byte { return call("num_tool", members(maxMembers/2)) },
				Want: result(size(members(maxMembers / 2))), MaxDur: slow},
			&HostileCase{Name: "huge/twice the member limit in arguments is refused", Rids: []string{"WithDecodeLimits", "R-BASE-07"}, Calls: map[string]int64{"num_tool": 0},
				Gen:  func() []byte { return call("num_tool", members(2*maxMembers)) },
				Want: idErr(protocol.CodeInvalidRequestError, "1"), MaxDur: fast},
			&HostileCase{Name: "huge/members over the limit spread over many small objects are refused", Rids: []string{"WithDecodeLimits", "R-BASE-07"}, Calls: map[string]int64{"num_tool": 0},
				Gen: func() []byte {
					return call("num_tool", `{"y":[`+strings.TrimSuffix(strings.Repeat(`{"a":0},`, maxMembers+1), ",")+`]}`)
				},
				Want: idErr(protocol.CodeInvalidRequestError, "1"), MaxDur: fast},
		)
	}
	for _, c := range cases {
		c.Http, c.Stdio = true, !c.StdioOff
		if c.Want.Status == 0 {
			c.Want.Status = http.StatusOK
		}
	}
	// 413 is the status of the body limit.
	for _, c := range cases {
		if strings.HasPrefix(c.Name, "limit/") && c.Want.Kind == "error" {
			c.Want.Status = http.StatusRequestEntityTooLarge
		}
	}
	return cases
}
