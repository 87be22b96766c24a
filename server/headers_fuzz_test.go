package server_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/internal/validate"
)

// FuzzDecodeSentinel fuzzes the header-value decoder of R-HDR-05. For
// every input v: no panic; a value that is not "=?base64?...?=" comes back
// unchanged and accepted; for a sentinel, the decoder accepts exactly what
// encoding/base64 (standard alphabet, padded) decodes, and when the base64
// is canonical, re-encoding the decoded value gives it back. v is also
// taken as a value a client encodes: its sentinel decodes to v. Seeds are
// ../testdata/fuzz/sentinel/*.txt, each file one value.
func FuzzDecodeSentinel(f *testing.F) {
	fzSeedLines(f, "sentinel", "*.txt")
	const pre, post = "=?base64?", "?="
	f.Fuzz(func(t *testing.T, v string) {
		got, ok := server.DecodeHeaderValue(v)
		if len(v) < len(pre)+len(post) || !strings.HasPrefix(v, pre) || !strings.HasSuffix(v, post) {
			if !ok || got != v {
				t.Fatalf("server.DecodeHeaderValue(%q) = %q, %v; want it unchanged", v, got, ok)
			}
		} else {
			inner := v[len(pre) : len(v)-len(post)]
			want, err := base64.StdEncoding.DecodeString(inner)
			if ok != (err == nil) {
				t.Fatalf("server.DecodeHeaderValue(%q) ok = %v, but base64 says %v", v, ok, err)
			}
			if ok && got != string(want) {
				t.Fatalf("server.DecodeHeaderValue(%q) = %q, want %q", v, got, want)
			}
			if !ok && got != "" {
				t.Fatalf("server.DecodeHeaderValue(%q) = %q on failure", v, got)
			}
			if _, err := base64.StdEncoding.Strict().DecodeString(inner); err == nil && !strings.ContainsAny(inner, "\r\n") {
				if !ok {
					t.Fatalf("server.DecodeHeaderValue(%q) refused canonical base64", v)
				}
				if re := base64.StdEncoding.EncodeToString([]byte(got)); re != inner {
					t.Fatalf("server.DecodeHeaderValue(%q) = %q, which encodes to %q", v, got, re)
				}
			}
		}

		// The other way round: a client's encoding of v.
		enc := pre + base64.StdEncoding.EncodeToString([]byte(v)) + post
		if got, ok := server.DecodeHeaderValue(enc); !ok || got != v {
			t.Fatalf("server.DecodeHeaderValue(%q) = %q, %v; want %q", enc, got, ok, v)
		}
	})
}

// FuzzParseValue: the sparse read of headerArgs gives checkParamHeaders
// the verdict the whole tree gives. (That the tree agrees with
// encoding/json, and countValues with the tree, is package validate's
// FuzzParseValue.)
func FuzzParseValue(f *testing.F) {
	for _, seed := range []string{`{}`, `[]`, `{"a":[1,{},[],[[]],"x\"]"],"b":{"c":null}}`, `{"region":"eu","loc":{"zone":"z"}}`,
		`{"region":["eu"],"loc":{"zone":{"a":1}},"count":7.0}`, `{"x":"\\\\","y":"\\\"",  "z" : [ 1 , 2 ] }`, `"s"`, `1e5`, `[{"region":"x"}]`,
		`{"loc":"z","count":"7","flag":true,"region":null}`, `{"r\u0065gion":"eu"}`} {
		f.Add([]byte(seed), "eu", "7")
	}
	params := []server.HeaderParam{
		server.NewHeaderParam("Region", "Mcp-Param-Region", []string{"region"}, "string"),
		server.NewHeaderParam("Count", "Mcp-Param-Count", []string{"count"}, "integer"),
		server.NewHeaderParam("Zone", "Mcp-Param-Zone", []string{"loc", "zone"}, "string"),
		server.NewHeaderParam("Flag", "Mcp-Param-Flag", []string{"flag"}, "boolean"),
	}
	f.Fuzz(func(t *testing.T, in []byte, region, count string) {
		if !json.Valid(in) || !utf8.Valid(in) {
			return
		}
		lim := validate.DefaultLimits()
		lim.MaxValues = 1 << 30
		got, err := validate.ParseValue(context.Background(), in, lim)
		if err != nil {
			return // over the number limits, case variants, lone surrogates
		}
		h := http.Header{"Mcp-Param-Region": {region}, "Mcp-Param-Count": {count}, "Mcp-Param-Zone": {"z"}, "Mcp-Param-Flag": {"true"}}
		whole, sparse := server.CheckParamHeaders(params, got, h), server.CheckParamHeaders(params, server.HeaderArgs(in, params), h)
		if (whole == nil) != (sparse == nil) || whole != nil && whole.Message != sparse.Message {
			t.Fatalf("%s: the whole tree gives %v, the sparse read %v", in, whole, sparse)
		}
	})
}
