package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	. "github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
)

var completeParams = M{"ref": M{"type": "ref/prompt", "name": "greet"}, "argument": M{"name": "who", "value": "A"}}

// TestEnvelope checks the envelope of every kind of result: resultType
// (R-BASE-05/06), serverInfo in _meta (R-META-04, R-DISC-03) and caching
// hints exactly on the cacheable results (R-CACHE-01/02, R-DISC-04).
func TestEnvelope(t *testing.T) {
	s := Fixture(t, server.WithCompletion(CompleteAll))
	h := Handler(s, streamhttp.Options{})
	elicit := WithMeta(Meta(KeyCaps, M{"elicitation": M{}}), M{"name": "ask"})
	cases := []struct {
		name       string
		method     string
		params     M
		resultType string
		cacheable  bool
	}{
		{"R-DISC-02 server/discover", protocol.MethodServerDiscover, Params(nil), "complete", true},
		{"R-CACHE-01 tools/list", protocol.MethodToolsList, Params(nil), "complete", true},
		{"R-CACHE-01 prompts/list", protocol.MethodPromptsList, Params(nil), "complete", true},
		{"R-CACHE-01 resources/list", protocol.MethodResourcesList, Params(nil), "complete", true},
		{"R-CACHE-01 resources/templates/list", protocol.MethodResourcesTemplatesList, Params(nil), "complete", true},
		{"R-CACHE-01 resources/read static", protocol.MethodResourcesRead, Params(M{"uri": "file:///a.txt"}), "complete", true},
		{"R-CACHE-01 resources/read template", protocol.MethodResourcesRead, Params(M{"uri": "users://ann/profile"}), "complete", true},
		{"R-BASE-05 tools/call", protocol.MethodToolsCall, Params(M{"name": "echo", "arguments": M{"text": "x"}}), "complete", false},
		{"R-BASE-05 tools/call isError", protocol.MethodToolsCall, Params(M{"name": "fail"}), "complete", false},
		{"R-BASE-05 prompts/get", protocol.MethodPromptsGet, Params(M{"name": "greet", "arguments": M{"who": "x"}}), "complete", false},
		{"R-BASE-05 completion/complete", protocol.MethodCompletionComplete, Params(completeParams), "complete", false},
		{"R-CACHE-02 input_required has no caching hints", protocol.MethodToolsCall, elicit, "input_required", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := Call(t, h, 1, c.method, c.params)
			if w.Error != nil {
				t.Fatalf("error %s", w.Raw)
			}
			if w.Result["resultType"] != c.resultType {
				t.Errorf("R-BASE-05/06: resultType %v, want %q", w.Result["resultType"], c.resultType)
			}
			m, _ := w.Result["_meta"].(M)
			info, _ := m[KeyInfo].(M)
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
				t.Errorf("R-CACHE-02: hints on a result that is not cacheable: %s", w.Raw)
			}
		})
	}
}

// TestWithoutServerInfo checks that serverInfo can be configured away
// (R-META-04 "unless configured otherwise") and resultType stays.
func TestWithoutServerInfo(t *testing.T) {
	h := Handler(Fixture(t, server.WithoutServerInfo()), streamhttp.Options{})
	for _, m := range []string{protocol.MethodServerDiscover, protocol.MethodToolsList} {
		w := Call(t, h, 1, m, Params(nil))
		if _, ok := w.Result["_meta"]; ok {
			t.Errorf("%s: _meta present: %s", m, w.Raw)
		}
		if w.Result["resultType"] != "complete" {
			t.Errorf("%s: resultType missing", m)
		}
	}
}

// TestDiscover checks server/discover (R-DISC-01..05, R-VER-01).
func TestDiscover(t *testing.T) {
	caps := func(t *testing.T, s *server.Server) M {
		t.Helper()
		w := Call(t, Handler(s, streamhttp.Options{}), 1, protocol.MethodServerDiscover, Params(nil))
		// The default, ErasBoth, lists the legacy versions after 2026-07-28.
		if fmt.Sprint(w.Result["supportedVersions"]) != "["+Rev+" 2025-11-25 2025-06-18 2025-03-26 2024-11-05]" {
			t.Errorf("R-DISC-02: supportedVersions %v", w.Result["supportedVersions"])
		}
		for _, k := range []string{"supportedVersions", "capabilities", "ttlMs", "cacheScope", "resultType"} {
			if _, ok := w.Result[k]; !ok {
				t.Errorf("R-DISC-02: %s missing: %s", k, w.Raw)
			}
		}
		c, _ := w.Result["capabilities"].(M)
		return c
	}
	t.Run("R-DISC-05 empty server declares only logging", func(t *testing.T) {
		c := caps(t, NewServer(t))
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
		c := caps(t, Fixture(t))
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
		c := caps(t, NewServer(t, server.WithCompletion(CompleteAll)))
		if _, ok := c["completions"].(M); !ok {
			t.Errorf("completions missing: %v", c)
		}
	})
	t.Run("R-RSRC-01 a template alone declares resources", func(t *testing.T) {
		s := NewServer(t)
		if err := s.AddResourceTemplate(protocol.ResourceTemplate{URITemplate: "x://{a}", Name: "x"}, func(context.Context, *server.Request, string, map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
			return nil, server.ErrNotFound
		}); err != nil {
			t.Fatal(err)
		}
		if _, ok := caps(t, s)["resources"]; !ok {
			t.Error("resources not declared")
		}
	})
	t.Run("instructions", func(t *testing.T) {
		s := NewServer(t, server.WithInstructions("Use the tools wisely."))
		w := Call(t, Handler(s, streamhttp.Options{}), 1, protocol.MethodServerDiscover, Params(nil))
		if w.Result["instructions"] != "Use the tools wisely." {
			t.Errorf("instructions %v", w.Result["instructions"])
		}
		w = Call(t, Handler(NewServer(t), streamhttp.Options{}), 1, protocol.MethodServerDiscover, Params(nil))
		if _, ok := w.Result["instructions"]; ok {
			t.Error("instructions present without WithInstructions")
		}
	})
}

// TestCacheHints checks WithCacheHint per method (R-CACHE-01, R-CACHE-03,
// R-CACHE-04) and that input_required never carries hints (R-CACHE-02),
// even on resources/read whose complete result does.
func TestCacheHints(t *testing.T) {
	hints := map[string]server.CacheHint{
		protocol.MethodServerDiscover:         {TTL: time.Hour, Scope: protocol.CacheScopePublic},
		protocol.MethodToolsList:              {TTL: 2 * time.Second, Scope: protocol.CacheScopePublic},
		protocol.MethodPromptsList:            {TTL: 3 * time.Second},
		protocol.MethodResourcesList:          {TTL: 4 * time.Second, Scope: protocol.CacheScopePrivate},
		protocol.MethodResourcesTemplatesList: {TTL: 5 * time.Second, Scope: protocol.CacheScopePublic},
		protocol.MethodResourcesRead:          {TTL: 1500 * time.Millisecond, Scope: protocol.CacheScopePrivate},
	}
	var opts []any
	for m, h := range hints {
		opts = append(opts, server.WithCacheHint(m, h))
	}
	s := Fixture(t, opts...)
	AddResource(t, s, protocol.Resource{URI: "mrtr://r", Name: "r"}, func(_ context.Context, r *server.Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		if r.State() != nil {
			return server.TextContents(uri, "", "done"), nil
		}
		return nil, r.AskInput(nil, []byte("s"))
	})
	h := Handler(s, streamhttp.Options{})
	cases := []struct {
		method string
		params M
		ttl    float64
		scope  string
	}{
		{protocol.MethodServerDiscover, Params(nil), 3600000, "public"},
		{protocol.MethodToolsList, Params(nil), 2000, "public"},
		{protocol.MethodPromptsList, Params(nil), 3000, "private"}, // scope defaults to private
		{protocol.MethodResourcesList, Params(nil), 4000, "private"},
		{protocol.MethodResourcesTemplatesList, Params(nil), 5000, "public"},
		{protocol.MethodResourcesRead, Params(M{"uri": "file:///a.txt"}), 1500, "private"},
	}
	for _, c := range cases {
		t.Run("R-CACHE-01 "+c.method, func(t *testing.T) {
			w := Call(t, h, 1, c.method, c.params)
			if w.Result["ttlMs"] != c.ttl || w.Result["cacheScope"] != c.scope {
				t.Errorf("ttlMs %v cacheScope %v, want %v %v", w.Result["ttlMs"], w.Result["cacheScope"], c.ttl, c.scope)
			}
		})
	}
	t.Run("R-CACHE-02 input_required on resources/read has no hints", func(t *testing.T) {
		w := Call(t, h, 1, protocol.MethodResourcesRead, Params(M{"uri": "mrtr://r"}))
		if w.Result["resultType"] != "input_required" {
			t.Fatalf("want input_required: %s", w.Raw)
		}
		if _, ok := w.Result["ttlMs"]; ok {
			t.Errorf("ttlMs on input_required: %s", w.Raw)
		}
		if _, ok := w.Result["cacheScope"]; ok {
			t.Errorf("cacheScope on input_required: %s", w.Raw)
		}
		// The retry's complete result carries the hints again (A13).
		w = Call(t, h, 2, protocol.MethodResourcesRead, Params(M{"uri": "mrtr://r", "requestState": w.Result["requestState"]}))
		if w.Result["ttlMs"] != float64(1500) {
			t.Errorf("A13: complete retry lacks hints: %s", w.Raw)
		}
	})
	t.Run("R-CACHE-05 every page of a list has the same cacheScope", func(t *testing.T) {
		s := NewServer(t, server.WithPageSize(1), server.WithCacheHint(protocol.MethodToolsList, server.CacheHint{Scope: protocol.CacheScopePublic}))
		for _, n := range []string{"a", "b", "c"} {
			AddTool(t, s, `{"name":"`+n+`","inputSchema":{"type":"object"}}`, TextTool(n))
		}
		h := Handler(s, streamhttp.Options{})
		var cursor any
		for page := 0; page < 3; page++ {
			p := Params(nil)
			if cursor != nil {
				p["cursor"] = cursor
			}
			w := Call(t, h, page, protocol.MethodToolsList, p)
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
		opt  server.Option
		ok   bool
	}{
		{"R-CACHE-03 negative ttl", server.WithCacheHint(protocol.MethodToolsList, server.CacheHint{TTL: -time.Second}), false},
		{"R-CACHE-04 unknown scope", server.WithCacheHint(protocol.MethodToolsList, server.CacheHint{Scope: "shared"}), false},
		{"unknown method", server.WithCacheHint("tools/call", server.CacheHint{TTL: time.Second}), false},
		{"valid", server.WithCacheHint(protocol.MethodResourcesRead, server.CacheHint{TTL: time.Second, Scope: protocol.CacheScopePublic}), true},
		{"zero hint", server.WithCacheHint(protocol.MethodServerDiscover, server.CacheHint{}), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := server.New(protocol.Implementation{Name: "n", Version: "1"}, c.opt)
			if (err == nil) != c.ok {
				t.Errorf("New error %v, want ok=%v", err, c.ok)
			}
		})
	}
}

// TestNewValidation checks the configuration New refuses.
func TestNewValidation(t *testing.T) {
	key := func(id uint32, n int) server.StateKey { return server.StateKey{ID: id, Secret: make([]byte, n)} }
	cases := []struct {
		name string
		impl protocol.Implementation
		opts []any
		ok   bool
	}{
		{"no name", protocol.Implementation{Version: "1"}, nil, false},
		{"no version", protocol.Implementation{Name: "n"}, nil, false},
		{"page size 0", protocol.Implementation{Name: "n", Version: "1"}, []any{server.WithPageSize(0)}, false},
		{"short state key", protocol.Implementation{Name: "n", Version: "1"}, []any{server.WithStateKeys(key(1, 16))}, false},
		{"duplicate key ids", protocol.Implementation{Name: "n", Version: "1"}, []any{server.WithStateKeys(key(1, 32), key(1, 32))}, false},
		{"valid keys", protocol.Implementation{Name: "n", Version: "1"}, []any{server.WithStateKeys(key(2, 32), key(1, 32))}, true},
		{"defaults", protocol.Implementation{Name: "n", Version: "1"}, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewWithEras(c.impl, c.opts...)
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
		{"R-TOOL-09 -32602 passes", server.InvalidParams("bad", nil), protocol.CodeInvalidParamsError, http.StatusBadRequest},
		{"R-BASE-15 application code passes", &server.Error{Code: 1001, Message: "quota"}, 1001, http.StatusBadRequest},
		{"R-META-03 -32021 passes", server.MissingCapability(protocol.ClientCapabilities{Roots: &protocol.ClientCapabilitiesRoots{}}), protocol.CodeMissingRequiredClientCapabilityError, http.StatusBadRequest},
		{"R-BASE-13 -32000 is not emitted", &server.Error{Code: -32000, Message: "server error"}, protocol.CodeInternalError, http.StatusInternalServerError},
		{"R-BASE-13 -32019 is not emitted", &server.Error{Code: -32019, Message: "x"}, protocol.CodeInternalError, http.StatusInternalServerError},
		{"R-BASE-14 -32002 is not emitted", &server.Error{Code: -32002, Message: "Resource not found"}, protocol.CodeInternalError, http.StatusInternalServerError},
		{"R-BASE-14 -32042 is not emitted", &server.Error{Code: -32042, Message: "URL elicitation required"}, protocol.CodeInternalError, http.StatusInternalServerError},
		{"R-BASE-12 undefined -32050 is not emitted", &server.Error{Code: -32050, Message: "x"}, protocol.CodeInternalError, http.StatusInternalServerError},
		{"wrapped *Error is unwrapped", fmt.Errorf("ctx: %w", server.InvalidParams("wrapped", nil)), protocol.CodeInvalidParamsError, http.StatusBadRequest},
		{"R-RSRC-05 -32603 is 500", server.InternalError("boom"), protocol.CodeInternalError, http.StatusInternalServerError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewServer(t, server.WithCompletion(func(context.Context, *server.Request, *protocol.CompleteRequestParams) (*protocol.CompleteResult, error) {
				return nil, c.err
			}))
			AddTool(t, s, `{"name":"e","inputSchema":{"type":"object"}}`, func(context.Context, *server.Request, json.RawMessage) (*protocol.CallToolResult, error) {
				return nil, c.err
			})
			addFailingPromptAndResource(t, s, c.err)
			h := Handler(s, streamhttp.Options{})
			for _, r := range []struct {
				method string
				p      M
			}{
				{protocol.MethodToolsCall, Params(M{"name": "e"})},
				{protocol.MethodPromptsGet, Params(M{"name": "p"})},
				{protocol.MethodResourcesRead, Params(M{"uri": "x://r"})},
				{protocol.MethodCompletionComplete, Params(completeParams)},
			} {
				rec := Post(t, h, Rpc(1, r.method, r.p), nil)
				w := Single(t, rec)
				if w.Code() != c.code || rec.Code != c.status {
					t.Errorf("%s: code %d status %d, want %d %d: %s", r.method, w.Code(), rec.Code, c.code, c.status, w.Raw)
				}
				if w.Id() != "1" {
					t.Errorf("%s: id %q", r.method, w.Id())
				}
			}
		})
	}
}

// addFailingPromptAndResource registers prompt "p" and resource "x://r",
// both failing with err.
func addFailingPromptAndResource(t testing.TB, s *server.Server, err error) {
	t.Helper()
	AddPrompt(t, s, protocol.Prompt{Name: "p"}, func(context.Context, *server.Request, map[string]string) (*protocol.GetPromptResult, error) {
		return nil, err
	})
	AddResource(t, s, protocol.Resource{URI: "x://r", Name: "r"}, func(context.Context, *server.Request, string, map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		return nil, err
	})
}

// TestPlainErrorsDoNotLeak checks that a plain error from a prompt,
// resource or completion handler is a generic -32603 (R-RSRC-05,
// R-PROMPT-03, R-COMP-03) whose message does not carry the error's text.
func TestPlainErrorsDoNotLeak(t *testing.T) {
	secret := fmt.Errorf("db password is hunter2")
	s := NewServer(t, server.WithCompletion(func(context.Context, *server.Request, *protocol.CompleteRequestParams) (*protocol.CompleteResult, error) {
		return nil, secret
	}))
	addFailingPromptAndResource(t, s, secret)
	h := Handler(s, streamhttp.Options{})
	for _, r := range []struct {
		method string
		p      M
	}{
		{protocol.MethodPromptsGet, Params(M{"name": "p"})},
		{protocol.MethodResourcesRead, Params(M{"uri": "x://r"})},
		{protocol.MethodCompletionComplete, Params(completeParams)},
	} {
		w := Call(t, h, 1, r.method, r.p)
		if w.Code() != protocol.CodeInternalError {
			t.Errorf("%s: code %d", r.method, w.Code())
		}
		if strings.Contains(string(w.Raw), "hunter2") {
			t.Errorf("%s: error text leaked: %s", r.method, w.Raw)
		}
	}
}

// TestResourceCacheHintPerResult checks that a resources/read handler can
// give its own result a cache hint (Request.SetCacheHint), overriding the
// server-wide one, and that a result reached through a multi round-trip
// retry is never public, whatever the handler or the configuration say
// (R-CACHE-01, R-CACHE-04, R-CACHE-06; issue 9, "cache scope per result").
func TestResourceCacheHintPerResult(t *testing.T) {
	s := NewServer(t, server.WithCacheHint(protocol.MethodResourcesRead, server.CacheHint{TTL: time.Minute, Scope: protocol.CacheScopePublic}))
	add := func(uri string, h server.ResourceHandler) {
		t.Helper()
		AddResource(t, s, protocol.Resource{URI: uri, Name: uri}, h)
	}
	add("hint://default", func(_ context.Context, _ *server.Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		return server.TextContents(uri, "", "shared"), nil
	})
	add("hint://mine", func(_ context.Context, r *server.Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		if err := r.SetCacheHint(server.CacheHint{TTL: 5 * time.Second, Scope: protocol.CacheScopePrivate}); err != nil {
			return nil, err
		}
		return server.TextContents(uri, "", "per user"), nil
	})
	add("hint://bad", func(_ context.Context, r *server.Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		if err := r.SetCacheHint(server.CacheHint{TTL: -time.Second}); err == nil {
			return nil, errors.New("a negative ttl was accepted")
		}
		if err := r.SetCacheHint(server.CacheHint{Scope: "shared"}); err == nil {
			return nil, errors.New("scope \"shared\" was accepted")
		}
		return server.TextContents(uri, "", "ok"), nil
	})
	add("hint://mrtr", func(_ context.Context, r *server.Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
		if r.State() == nil {
			return nil, r.AskInput(map[string]protocol.InputRequest{"name": server.ElicitForm("Name?", map[string]protocol.PrimitiveSchemaDefinition{"name": server.StringField("")}, "name")}, []byte("asked"))
		}
		// Even a handler that says public gets private on a retry.
		if err := r.SetCacheHint(server.CacheHint{TTL: time.Hour, Scope: protocol.CacheScopePublic}); err != nil {
			return nil, err
		}
		return server.TextContents(uri, "", "answered"), nil
	})
	h := Handler(s, streamhttp.Options{})
	read := func(p M) *Wire {
		t.Helper()
		w := Call(t, h, 1, protocol.MethodResourcesRead, WithMeta(ElicitCaps, p))
		if w.Error != nil {
			t.Fatalf("%v: %s", p, w.Raw)
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
		t.Fatalf("no input_required: %s", first.Raw)
	}
	w := read(M{"uri": "hint://mrtr", "requestState": st, "inputResponses": Accepted})
	if w.Result["cacheScope"] != "private" {
		t.Errorf("R-CACHE-06: a result reached through input responses is %v, want private: %s", w.Result["cacheScope"], w.Raw)
	}
}
