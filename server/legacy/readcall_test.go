package legacy

import (
	"io"
	"log/slog"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

// readCallEra is an Era with the given decode limits, for the tests of
// readMessage on its own.
func readCallEra(t testing.TB, limits protocol.UnmarshalOptions) *Era {
	t.Helper()
	s, err := server.New(protocol.Implementation{Name: "t", Version: "1"},
		server.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))), server.WithDecodeLimits(limits))
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(s, Config{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// The pieces readCallBodies combines: members of the envelope, of params
// and of params._meta, good and bad.
var (
	rcIDs      = []string{`1`, `"a"`, `-7`, `1.5`, `null`, `"\u0041"`, `{}`, `1e2`, `"x\ud800"`}
	rcJSONRPC  = []string{`"2.0"`, `"2.1"`, `2`, `"2\u002e0"`}
	rcMethods  = []string{`"tools/call"`, `"tools\/call"`, `"TOOLS/CALL"`, `"tools/list"`, `"tools/call "`, `5`}
	rcMetaKeys = []string{`"progressToken":1`, `"progressToken":"t"`, `"progressToken":null`, `"progressToken":1.5`,
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28"`, `"io.modelcontextprotocol/clientCapabilities":{}`,
		`"io.modelcontextprotocol\/protocolVersion":null`, `"IO.modelcontextprotocol/protocolVersion":"x"`,
		`"io.modelcontextprotocol/clientcapabilities":{}`, `"io.modelcontextprotocol/clientInfo":{}`,
		`"x":[1,{"y":"]"}]`, `"a\"b":"}"`, `"k":"\u00e9"`}
	rcParamMembers = []string{`"name":"echo"`, `"name":"\u0065cho"`, `"name":"e\"c"`, `"name":5`, `"name":null`, `"name":"\ud83d\ude00"`,
		`"arguments":{"text":"hello"}`, `"arguments":{}`, `"arguments":null`, `"arguments":[]`, `"arguments":"s"`,
		`"arguments":{"a":{"b":{"c":{"d":[1,[2,[3]]]}}}}`, `"arguments":{"a":1,"a":2}`, `"arguments":{"x":1.5e3,"y":true,"z":null}`,
		`"task":{"ttl":1}`, `"task":{"ttl":1.5}`, `"task":null`, `"task":{}`,
		`"_meta":null`, `"_meta":{}`, `"_meta":5`, `"_META":{}`, `"_mEta":{"io.modelcontextprotocol/protocolVersion":1}`,
		`"Name":"x"`, `"other":[1,2]`, `"na\u006de":"y"`, `"ſ":1`}
	rcEnvelopeExtra = []string{`"result":{}`, `"error":{"code":1,"message":"m"}`, `"x":1`, `"Method":"m"`, `"PARAMS":{}`, `"jsonrpc":"2.0"`}
)

// readCallBodies returns n bodies built from the pieces, mostly good
// tools/calls with one or two pieces changed, and the edge cases.
func readCallBodies(n int) []string {
	pick := func(r *rand.Rand, s []string) string { return s[r.IntN(len(s))] }
	r := rand.New(rand.NewPCG(1, 2))
	bodies := []string{
		``, `{}`, `[]`, `null`, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}]`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}} x`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}{}`,
		"\xef\xbb\xbf" + `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`,
		` { "jsonrpc" : "2.0" , "id" : 1 , "method" : "tools/call" , "params" : { "name" : "echo" } } `,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"},"params":{"name":"echo"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","method":"tools/call","params":{"name":"echo"}}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{},"_meta":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"progressToken":1,"progressToken":2}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e` + "\xff" + `"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e` + "\x01" + `"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"t":"` + "\xc3\xa9" + `"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"tools/call"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"tools/call"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"tools/call"}}`,
		`{"jsonrpc":"2.0","id":"tools/call","result":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"x","IO.modelcontextprotocol/protocolVersion":"y"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"IO.modelcontextprotocol/protocolVersion":"y","io.modelcontextprotocol/clientCapabilities":{}}}}`,
	}
	for len(bodies) < n {
		env := []string{`"jsonrpc":"2.0"`, `"id":1`, `"method":"tools/call"`}
		params := []string{`"name":"echo"`, `"arguments":{"text":"hello"}`}
		if r.IntN(2) == 0 {
			var meta []string
			for range r.IntN(4) {
				meta = append(meta, pick(r, rcMetaKeys))
			}
			params = append(params, `"_meta":{`+strings.Join(meta, ",")+`}`)
		}
		for range r.IntN(3) {
			switch r.IntN(6) {
			case 0:
				env[0] = `"jsonrpc":` + pick(r, rcJSONRPC)
			case 1:
				env[1] = `"id":` + pick(r, rcIDs)
			case 2:
				env[2] = `"method":` + pick(r, rcMethods)
			case 3:
				env = append(env, pick(r, rcEnvelopeExtra))
			case 4:
				params = append(params, pick(r, rcParamMembers))
			case 5:
				i := r.IntN(len(params))
				params = append(params[:i], params[i+1:]...)
			}
		}
		env = append(env, `"params":{`+strings.Join(params, ",")+`}`)
		r.Shuffle(len(env), func(i, j int) { env[i], env[j] = env[j], env[i] })
		r.Shuffle(len(params), func(i, j int) { params[i], params[j] = params[j], params[i] })
		bodies = append(bodies, "{"+strings.Join(env, ",")+"}")
	}
	return bodies
}

// TestReadCallDifferential checks readCall, the one-pass decode of a
// tools/call, against readAny, the path it bypasses, and legacyParams's
// L5 decode of the params it read: wherever readCall takes a body, the
// message is the same (kind, id, method, bm, or the same refusal) and its
// params are the ones L5 decodes, for the default decode limits and
// tight ones (the limits count the same members and levels on both).
func TestReadCallDifferential(t *testing.T) {
	bodies := readCallBodies(4000)
	for _, limits := range []protocol.UnmarshalOptions{
		{}, {MaxDepth: 3}, {MaxDepth: 4}, {MaxMembers: 5}, {MaxMembers: 7}, {MaxStringBytes: 4}, {MaxStringBytes: 10},
	} {
		s := readCallEra(t, limits)
		taken := 0
		for _, body := range bodies {
			if readCallAgrees(t, s, []byte(body)) {
				taken++
			}
		}
		t.Logf("limits %+v: readCall took %d of %d bodies", limits, taken, len(bodies))
		if limits == (protocol.UnmarshalOptions{}) && taken < len(bodies)/10 {
			t.Errorf("readCall took %d bodies of %d: the test checks too little", taken, len(bodies))
		}
	}
}

// TestMayBeToolsCall checks the hint of readCall against bytes.Contains.
func TestMayBeToolsCall(t *testing.T) {
	for _, b := range append(readCallBodies(500), `"tools/call"`, `tools/call"`, `"tools/call`, `/`, `//`, `"tools//call"`,
		`"tools/cal"/call"`, `"tools/"tools/call"`, `"tool/call"`, `x"tools/call"x`, `"tools\/call"`) {
		if got, want := mayBeToolsCall([]byte(b)), strings.Contains(b, `"tools/call"`); got != want {
			t.Errorf("mayBeToolsCall(%s) = %v, want %v", b, got, want)
		}
	}
}

// FuzzReadCall is TestReadCallDifferential on fuzzed bodies.
func FuzzReadCall(f *testing.F) {
	for _, b := range readCallBodies(200) {
		f.Add([]byte(b))
	}
	s := readCallEra(f, protocol.UnmarshalOptions{MaxDepth: 6, MaxMembers: 12, MaxStringBytes: 64})
	f.Fuzz(func(t *testing.T, body []byte) { readCallAgrees(t, s, body) })
}

// readCallAgrees reports whether readCall takes body, failing t when its
// message differs from readAny's.
func readCallAgrees(t *testing.T, s *Era, body []byte) bool {
	t.Helper()
	fast, ok := s.readCall(body)
	if !ok {
		return false
	}
	if got := s.readMessage(body); !reflect.DeepEqual(got, fast) {
		t.Errorf("%s: readMessage does not answer as readCall", body)
	}
	slow := s.readAny(body)
	type view struct {
		kind          msgKind
		id            protocol.RequestId
		hasID, modern bool
		method        string
		err           *server.Error
		badID         *protocol.RequestId
	}
	fv := view{fast.kind, fast.id, fast.hasID, fast.modern, fast.method, fast.badErr, fast.badID}
	sv := view{slow.kind, slow.id, slow.hasID, slow.modern, slow.method, slow.badErr, slow.badID}
	if !reflect.DeepEqual(fv, sv) {
		t.Errorf("%s:\nreadCall %+v\nreadAny  %+v", body, fv, sv)
		return true
	}
	if fast.kind != msgRequest {
		return true
	}
	if fast.call == nil || fast.params != nil || slow.call != nil {
		t.Errorf("%s: readCall's message holds params %v, call %v; readAny's call %v", body, fast.params != nil, fast.call != nil, slow.call != nil)
		return true
	}
	want, e := s.legacyParams(&slow)
	if e != nil {
		t.Errorf("%s: readCall took it, but L5 refuses its params: %s", body, e.Message)
		return true
	}
	if got, _ := s.legacyParams(&fast); !reflect.DeepEqual(got, want) {
		t.Errorf("%s: params\nreadCall %+v\nL5       %+v", body, got, want)
	}
	gn, gok := fast.paramString("name")
	wn, wok := stringMember(slow.params, "name")
	if gn != wn || gok != wok {
		t.Errorf("%s: name %q %v, stringMember %q %v", body, gn, gok, wn, wok)
	}
	return true
}
