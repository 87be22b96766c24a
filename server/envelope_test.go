package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
)

func completeAll(_ context.Context, _ *Request, p *protocol.CompleteRequestParams) (*protocol.CompleteResult, error) {
	return &protocol.CompleteResult{Completion: protocol.CompleteResultCompletion{Values: []string{p.Argument.Value + "1", p.Argument.Value + "2"}}}, nil
}

var completeParams = M{"ref": M{"type": "ref/prompt", "name": "greet"}, "argument": M{"name": "who", "value": "A"}}

// TestEnvelope checks the envelope of every kind of result: resultType
// (R-BASE-05/06), serverInfo in _meta (R-META-04, R-DISC-03) and caching
// hints exactly on the cacheable results (R-CACHE-01/02, R-DISC-04).
func TestEnvelope(t *testing.T) {
	s := fixture(t, WithCompletion(completeAll))
	h := s.Handler(HTTPOptions{})
	elicit := withMeta(meta(keyCaps, M{"elicitation": M{}}), M{"name": "ask"})
	cases := []struct {
		name       string
		method     string
		params     M
		resultType string
		cacheable  bool
	}{
		{"R-DISC-02 server/discover", protocol.MethodServerDiscover, params(nil), "complete", true},
		{"R-CACHE-01 tools/list", protocol.MethodToolsList, params(nil), "complete", true},
		{"R-CACHE-01 prompts/list", protocol.MethodPromptsList, params(nil), "complete", true},
		{"R-CACHE-01 resources/list", protocol.MethodResourcesList, params(nil), "complete", true},
		{"R-CACHE-01 resources/templates/list", protocol.MethodResourcesTemplatesList, params(nil), "complete", true},
		{"R-CACHE-01 resources/read static", protocol.MethodResourcesRead, params(M{"uri": "file:///a.txt"}), "complete", true},
		{"R-CACHE-01 resources/read template", protocol.MethodResourcesRead, params(M{"uri": "users://ann/profile"}), "complete", true},
		{"R-BASE-05 tools/call", protocol.MethodToolsCall, params(M{"name": "echo", "arguments": M{"text": "x"}}), "complete", false},
		{"R-BASE-05 tools/call isError", protocol.MethodToolsCall, params(M{"name": "fail"}), "complete", false},
		{"R-BASE-05 prompts/get", protocol.MethodPromptsGet, params(M{"name": "greet", "arguments": M{"who": "x"}}), "complete", false},
		{"R-BASE-05 completion/complete", protocol.MethodCompletionComplete, params(completeParams), "complete", false},
		{"R-CACHE-02 input_required has no caching hints", protocol.MethodToolsCall, elicit, "input_required", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := call(t, h, 1, c.method, c.params)
			if w.Error != nil {
				t.Fatalf("error %s", w.raw)
			}
			if w.Result["resultType"] != c.resultType {
				t.Errorf("R-BASE-05/06: resultType %v, want %q", w.Result["resultType"], c.resultType)
			}
			m, _ := w.Result["_meta"].(M)
			info, _ := m[keyInfo].(M)
			if info["name"] != "test" || info["version"] != "1.0.0" {
				t.Errorf("R-META-04: _meta serverInfo %v", m)
			}
			_, hasTTL := w.Result["ttlMs"]
			_, hasScope := w.Result["cacheScope"]
			if c.cacheable {
				if w.Result["ttlMs"] != float64(0) || w.Result["cacheScope"] != "private" {
					t.Errorf("R-CACHE-01: default hints ttlMs %v cacheScope %v, want 0 and private", w.Result["ttlMs"], w.Result["cacheScope"])
				}
			} else if hasTTL || hasScope {
				t.Errorf("R-CACHE-02: hints on a result that is not cacheable: %s", w.raw)
			}
		})
	}
}

// TestWithoutServerInfo checks that serverInfo can be configured away
// (R-META-04 "unless configured otherwise") and resultType stays.
func TestWithoutServerInfo(t *testing.T) {
	h := fixture(t, WithoutServerInfo()).Handler(HTTPOptions{})
	for _, m := range []string{protocol.MethodServerDiscover, protocol.MethodToolsList} {
		w := call(t, h, 1, m, params(nil))
		if _, ok := w.Result["_meta"]; ok {
			t.Errorf("%s: _meta present: %s", m, w.raw)
		}
		if w.Result["resultType"] != "complete" {
			t.Errorf("%s: resultType missing", m)
		}
	}
}

// TestDiscover checks server/discover (R-DISC-01..05, R-VER-01).
func TestDiscover(t *testing.T) {
	caps := func(t *testing.T, s *Server) M {
		t.Helper()
		w := call(t, s.Handler(HTTPOptions{}), 1, protocol.MethodServerDiscover, params(nil))
		// The default, ErasBoth, lists the legacy versions after 2026-07-28.
		if fmt.Sprint(w.Result["supportedVersions"]) != "["+rev+" 2025-11-25 2025-06-18 2025-03-26 2024-11-05]" {
			t.Errorf("R-DISC-02: supportedVersions %v", w.Result["supportedVersions"])
		}
		for _, k := range []string{"supportedVersions", "capabilities", "ttlMs", "cacheScope", "resultType"} {
			if _, ok := w.Result[k]; !ok {
				t.Errorf("R-DISC-02: %s missing: %s", k, w.raw)
			}
		}
		c, _ := w.Result["capabilities"].(M)
		return c
	}
	t.Run("R-DISC-05 empty server declares only logging", func(t *testing.T) {
		c := caps(t, newServer(t))
		for _, k := range []string{"tools", "prompts", "resources", "completions"} {
			if _, ok := c[k]; ok {
				t.Errorf("capability %s declared by an empty server", k)
			}
		}
		if _, ok := c["logging"]; !ok {
			t.Error("R-LOG-02: logging not declared though Request.Log can emit")
		}
	})
	t.Run("R-DISC-05 R-TOOL-01 R-PROMPT-01 R-RSRC-01 full server", func(t *testing.T) {
		c := caps(t, fixture(t))
		for _, k := range []string{"tools", "prompts", "resources", "logging"} {
			if _, ok := c[k].(M); !ok {
				t.Errorf("capability %s missing or not an object: %v", k, c)
			}
		}
		if _, ok := c["completions"]; ok {
			t.Error("R-COMP-01: completions declared without WithCompletion")
		}
	})
	t.Run("R-COMP-01 completions declared with WithCompletion", func(t *testing.T) {
		c := caps(t, newServer(t, WithCompletion(completeAll)))
		if _, ok := c["completions"].(M); !ok {
			t.Errorf("completions missing: %v", c)
		}
	})
	t.Run("R-RSRC-01 a template alone declares resources", func(t *testing.T) {
		s := newServer(t)
		if err := s.AddResourceTemplate(protocol.ResourceTemplate{URITemplate: "x://{a}", Name: "x"}, func(context.Context, *Request, string, map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
			return nil, ErrNotFound
		}); err != nil {
			t.Fatal(err)
		}
		if _, ok := caps(t, s)["resources"]; !ok {
			t.Error("resources not declared")
		}
	})
	t.Run("instructions", func(t *testing.T) {
		s := newServer(t, WithInstructions("Use the tools wisely."))
		w := call(t, s.Handler(HTTPOptions{}), 1, protocol.MethodServerDiscover, params(nil))
		if w.Result["instructions"] != "Use the tools wisely." {
			t.Errorf("instructions %v", w.Result["instructions"])
		}
		w = call(t, newServer(t).Handler(HTTPOptions{}), 1, protocol.MethodServerDiscover, params(nil))
		if _, ok := w.Result["instructions"]; ok {
			t.Error("instructions present without WithInstructions")
		}
	})
}

// TestCacheHints checks WithCacheHint per method (R-CACHE-01, R-CACHE-03,
// R-CACHE-04) and that input_required never carries hints (R-CACHE-02),
// even on resources/read whose complete result does.
func TestCacheHints(t *testing.T) {
	hints := map[string]CacheHint{
		protocol.MethodServerDiscover:         {TTL: time.Hour, Scope: protocol.CacheScopePublic},
		protocol.MethodToolsList:              {TTL: 2 * time.Second, Scope: protocol.CacheScopePublic},
		protocol.MethodPromptsList:            {TTL: 3 * time.Second},
		protocol.MethodResourcesList:          {TTL: 4 * time.Second, Scope: protocol.CacheScopePrivate},
		protocol.MethodResourcesTemplatesList: {TTL: 5 * time.Second, Scope: protocol.CacheScopePublic},
		protocol.MethodResourcesRead:          {TTL: 1500 * time.Millisecond, Scope: protocol.CacheScopePrivate},
	}
	var opts []Option
	for m, h := range hints {
		opts = append(opts, WithCacheHint(m, h))
	}
	s := fixture(t, opts...)
	addResource(t, s, protocol.Resource{URI: "mrtr://r", Name: "r"}, func(_ context.Context, r *Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		if r.State() != nil {
			return TextContents(uri, "", "done"), nil
		}
		return nil, r.AskInput(nil, []byte("s"))
	})
	h := s.Handler(HTTPOptions{})
	cases := []struct {
		method string
		params M
		ttl    float64
		scope  string
	}{
		{protocol.MethodServerDiscover, params(nil), 3600000, "public"},
		{protocol.MethodToolsList, params(nil), 2000, "public"},
		{protocol.MethodPromptsList, params(nil), 3000, "private"}, // scope defaults to private
		{protocol.MethodResourcesList, params(nil), 4000, "private"},
		{protocol.MethodResourcesTemplatesList, params(nil), 5000, "public"},
		{protocol.MethodResourcesRead, params(M{"uri": "file:///a.txt"}), 1500, "private"},
	}
	for _, c := range cases {
		t.Run("R-CACHE-01 "+c.method, func(t *testing.T) {
			w := call(t, h, 1, c.method, c.params)
			if w.Result["ttlMs"] != c.ttl || w.Result["cacheScope"] != c.scope {
				t.Errorf("ttlMs %v cacheScope %v, want %v %v", w.Result["ttlMs"], w.Result["cacheScope"], c.ttl, c.scope)
			}
		})
	}
	t.Run("R-CACHE-02 input_required on resources/read has no hints", func(t *testing.T) {
		w := call(t, h, 1, protocol.MethodResourcesRead, params(M{"uri": "mrtr://r"}))
		if w.Result["resultType"] != "input_required" {
			t.Fatalf("want input_required: %s", w.raw)
		}
		if _, ok := w.Result["ttlMs"]; ok {
			t.Errorf("ttlMs on input_required: %s", w.raw)
		}
		if _, ok := w.Result["cacheScope"]; ok {
			t.Errorf("cacheScope on input_required: %s", w.raw)
		}
		// The retry's complete result carries the hints again (A13).
		w = call(t, h, 2, protocol.MethodResourcesRead, params(M{"uri": "mrtr://r", "requestState": w.Result["requestState"]}))
		if w.Result["ttlMs"] != float64(1500) {
			t.Errorf("A13: complete retry lacks hints: %s", w.raw)
		}
	})
	t.Run("R-CACHE-05 every page of a list has the same cacheScope", func(t *testing.T) {
		s := newServer(t, WithPageSize(1), WithCacheHint(protocol.MethodToolsList, CacheHint{Scope: protocol.CacheScopePublic}))
		for _, n := range []string{"a", "b", "c"} {
			addTool(t, s, `{"name":"`+n+`","inputSchema":{"type":"object"}}`, textTool(n))
		}
		h := s.Handler(HTTPOptions{})
		var cursor any
		for page := 0; page < 3; page++ {
			p := params(nil)
			if cursor != nil {
				p["cursor"] = cursor
			}
			w := call(t, h, page, protocol.MethodToolsList, p)
			if w.Result["cacheScope"] != "public" {
				t.Errorf("page %d cacheScope %v", page, w.Result["cacheScope"])
			}
			cursor = w.Result["nextCursor"]
		}
	})
}

// TestCacheHintValidation checks that New refuses caching hints the schema
// forbids (R-CACHE-03 ttlMs >= 0, R-CACHE-04 cacheScope enum), instead of
// failing every request of that method with -32603.
func TestCacheHintValidation(t *testing.T) {
	cases := []struct {
		name string
		opt  Option
		ok   bool
	}{
		{"R-CACHE-03 negative ttl", WithCacheHint(protocol.MethodToolsList, CacheHint{TTL: -time.Second}), false},
		{"R-CACHE-04 unknown scope", WithCacheHint(protocol.MethodToolsList, CacheHint{Scope: "shared"}), false},
		{"unknown method", WithCacheHint("tools/call", CacheHint{TTL: time.Second}), false},
		{"valid", WithCacheHint(protocol.MethodResourcesRead, CacheHint{TTL: time.Second, Scope: protocol.CacheScopePublic}), true},
		{"zero hint", WithCacheHint(protocol.MethodServerDiscover, CacheHint{}), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := New(protocol.Implementation{Name: "n", Version: "1"}, c.opt)
			if (err == nil) != c.ok {
				t.Errorf("New error %v, want ok=%v", err, c.ok)
			}
		})
	}
}

// TestNewValidation checks the configuration New refuses.
func TestNewValidation(t *testing.T) {
	key := func(id uint32, n int) StateKey { return StateKey{ID: id, Secret: make([]byte, n)} }
	cases := []struct {
		name string
		impl protocol.Implementation
		opts []Option
		ok   bool
	}{
		{"no name", protocol.Implementation{Version: "1"}, nil, false},
		{"no version", protocol.Implementation{Name: "n"}, nil, false},
		{"page size 0", protocol.Implementation{Name: "n", Version: "1"}, []Option{WithPageSize(0)}, false},
		{"short state key", protocol.Implementation{Name: "n", Version: "1"}, []Option{WithStateKeys(key(1, 16))}, false},
		{"duplicate key ids", protocol.Implementation{Name: "n", Version: "1"}, []Option{WithStateKeys(key(1, 32), key(1, 32))}, false},
		{"valid keys", protocol.Implementation{Name: "n", Version: "1"}, []Option{WithStateKeys(key(2, 32), key(1, 32))}, true},
		{"defaults", protocol.Implementation{Name: "n", Version: "1"}, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := New(c.impl, c.opts...)
			if (err == nil) != c.ok {
				t.Errorf("New error %v, want ok=%v", err, c.ok)
			}
		})
	}
}

// TestHandlerErrorCodes checks what error code reaches the client when a
// handler returns an *Error: defined codes and application codes pass;
// codes the revision forbids the server to emit become -32603
// (R-BASE-12, R-BASE-13, R-BASE-14); plain errors never leak.
func TestHandlerErrorCodes(t *testing.T) {
	cases := []struct {
		name   string
		err    error
		code   int64
		status int
	}{
		{"R-TOOL-09 -32602 passes", InvalidParams("bad", nil), protocol.CodeInvalidParamsError, http.StatusBadRequest},
		{"R-BASE-15 application code passes", &Error{Code: 1001, Message: "quota"}, 1001, http.StatusBadRequest},
		{"R-META-03 -32021 passes", MissingCapability(protocol.ClientCapabilities{Roots: &protocol.ClientCapabilitiesRoots{}}), protocol.CodeMissingRequiredClientCapabilityError, http.StatusBadRequest},
		{"R-BASE-13 -32000 is not emitted", &Error{Code: -32000, Message: "server error"}, protocol.CodeInternalError, http.StatusInternalServerError},
		{"R-BASE-13 -32019 is not emitted", &Error{Code: -32019, Message: "x"}, protocol.CodeInternalError, http.StatusInternalServerError},
		{"R-BASE-14 -32002 is not emitted", &Error{Code: -32002, Message: "Resource not found"}, protocol.CodeInternalError, http.StatusInternalServerError},
		{"R-BASE-14 -32042 is not emitted", &Error{Code: -32042, Message: "URL elicitation required"}, protocol.CodeInternalError, http.StatusInternalServerError},
		{"R-BASE-12 undefined -32050 is not emitted", &Error{Code: -32050, Message: "x"}, protocol.CodeInternalError, http.StatusInternalServerError},
		{"wrapped *Error is unwrapped", fmt.Errorf("ctx: %w", InvalidParams("wrapped", nil)), protocol.CodeInvalidParamsError, http.StatusBadRequest},
		{"R-RSRC-05 -32603 is 500", InternalError("boom"), protocol.CodeInternalError, http.StatusInternalServerError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newServer(t, WithCompletion(func(context.Context, *Request, *protocol.CompleteRequestParams) (*protocol.CompleteResult, error) {
				return nil, c.err
			}))
			addTool(t, s, `{"name":"e","inputSchema":{"type":"object"}}`, func(context.Context, *Request, json.RawMessage) (*protocol.CallToolResult, error) {
				return nil, c.err
			})
			addFailingPromptAndResource(t, s, c.err)
			h := s.Handler(HTTPOptions{})
			for _, r := range []struct {
				method string
				p      M
			}{
				{protocol.MethodToolsCall, params(M{"name": "e"})},
				{protocol.MethodPromptsGet, params(M{"name": "p"})},
				{protocol.MethodResourcesRead, params(M{"uri": "x://r"})},
				{protocol.MethodCompletionComplete, params(completeParams)},
			} {
				rec := post(t, h, rpc(1, r.method, r.p), nil)
				w := single(t, rec)
				if w.code() != c.code || rec.Code != c.status {
					t.Errorf("%s: code %d status %d, want %d %d: %s", r.method, w.code(), rec.Code, c.code, c.status, w.raw)
				}
				if w.id() != "1" {
					t.Errorf("%s: id %q", r.method, w.id())
				}
			}
		})
	}
}

// addFailingPromptAndResource registers prompt "p" and resource "x://r",
// both failing with err.
func addFailingPromptAndResource(t testing.TB, s *Server, err error) {
	t.Helper()
	addPrompt(t, s, protocol.Prompt{Name: "p"}, func(context.Context, *Request, map[string]string) (*protocol.GetPromptResult, error) {
		return nil, err
	})
	addResource(t, s, protocol.Resource{URI: "x://r", Name: "r"}, func(context.Context, *Request, string, map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		return nil, err
	})
}

// TestPlainErrorsDoNotLeak checks that a plain error from a prompt,
// resource or completion handler is a generic -32603 (R-RSRC-05,
// R-PROMPT-03, R-COMP-03) whose message does not carry the error's text.
func TestPlainErrorsDoNotLeak(t *testing.T) {
	secret := fmt.Errorf("db password is hunter2")
	s := newServer(t, WithCompletion(func(context.Context, *Request, *protocol.CompleteRequestParams) (*protocol.CompleteResult, error) {
		return nil, secret
	}))
	addFailingPromptAndResource(t, s, secret)
	h := s.Handler(HTTPOptions{})
	for _, r := range []struct {
		method string
		p      M
	}{
		{protocol.MethodPromptsGet, params(M{"name": "p"})},
		{protocol.MethodResourcesRead, params(M{"uri": "x://r"})},
		{protocol.MethodCompletionComplete, params(completeParams)},
	} {
		w := call(t, h, 1, r.method, r.p)
		if w.code() != protocol.CodeInternalError {
			t.Errorf("%s: code %d", r.method, w.code())
		}
		if strings.Contains(string(w.raw), "hunter2") {
			t.Errorf("%s: error text leaked: %s", r.method, w.raw)
		}
	}
}

// TestResourceCacheHintPerResult checks that a resources/read handler can
// give its own result a cache hint (Request.SetCacheHint), overriding the
// server-wide one, and that a result reached through a multi round-trip
// retry is never public, whatever the handler or the configuration say
// (R-CACHE-01, R-CACHE-04, R-CACHE-06; issue 9, "cache scope per result").
func TestResourceCacheHintPerResult(t *testing.T) {
	s := newServer(t, WithCacheHint(protocol.MethodResourcesRead, CacheHint{TTL: time.Minute, Scope: protocol.CacheScopePublic}))
	add := func(uri string, h ResourceHandler) {
		t.Helper()
		addResource(t, s, protocol.Resource{URI: uri, Name: uri}, h)
	}
	add("hint://default", func(_ context.Context, _ *Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		return TextContents(uri, "", "shared"), nil
	})
	add("hint://mine", func(_ context.Context, r *Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		if err := r.SetCacheHint(CacheHint{TTL: 5 * time.Second, Scope: protocol.CacheScopePrivate}); err != nil {
			return nil, err
		}
		return TextContents(uri, "", "per user"), nil
	})
	add("hint://bad", func(_ context.Context, r *Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		if err := r.SetCacheHint(CacheHint{TTL: -time.Second}); err == nil {
			return nil, errors.New("a negative ttl was accepted")
		}
		if err := r.SetCacheHint(CacheHint{Scope: "shared"}); err == nil {
			return nil, errors.New("scope \"shared\" was accepted")
		}
		return TextContents(uri, "", "ok"), nil
	})
	add("hint://mrtr", func(_ context.Context, r *Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		if r.State() == nil {
			return nil, r.AskInput(map[string]protocol.InputRequest{"name": ElicitForm("Name?", map[string]protocol.PrimitiveSchemaDefinition{"name": StringField("")}, "name")}, []byte("asked"))
		}
		// Even a handler that says public gets private on a retry.
		if err := r.SetCacheHint(CacheHint{TTL: time.Hour, Scope: protocol.CacheScopePublic}); err != nil {
			return nil, err
		}
		return TextContents(uri, "", "answered"), nil
	})
	h := s.Handler(HTTPOptions{})
	read := func(p M) *wire {
		t.Helper()
		w := call(t, h, 1, protocol.MethodResourcesRead, withMeta(elicitCaps, p))
		if w.Error != nil {
			t.Fatalf("%v: %s", p, w.raw)
		}
		return w
	}
	for _, c := range []struct {
		uri   string
		ttl   float64
		scope string
	}{
		{"hint://default", 60000, "public"},
		{"hint://mine", 5000, "private"},
		{"hint://bad", 60000, "public"},
	} {
		w := read(M{"uri": c.uri})
		if w.Result["ttlMs"] != c.ttl || w.Result["cacheScope"] != c.scope {
			t.Errorf("%s: ttlMs %v cacheScope %v, want %v %v", c.uri, w.Result["ttlMs"], w.Result["cacheScope"], c.ttl, c.scope)
		}
	}
	first := read(M{"uri": "hint://mrtr"})
	st, _ := first.Result["requestState"].(string)
	if st == "" {
		t.Fatalf("no input_required: %s", first.raw)
	}
	w := read(M{"uri": "hint://mrtr", "requestState": st, "inputResponses": accepted})
	if w.Result["cacheScope"] != "private" {
		t.Errorf("R-CACHE-06: a result reached through input responses is %v, want private: %s", w.Result["cacheScope"], w.raw)
	}
}
