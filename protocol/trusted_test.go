package protocol

import (
	"bytes"
	"strings"
	"testing"
)

// TestMarshalOptionsTrusted: MarshalOptions.Trusted spares its very bytes
// the validation, and nothing else: an equal copy, another raw value of
// the same result, a raw member that takes an object only, and the same
// bytes under the zero options are validated as Marshal validates them.
func TestMarshalOptionsTrusted(t *testing.T) {
	valid := []byte(`{"text":"hello"}`)
	res := &CallToolResult{Content: []ContentBlock{}, StructuredContent: valid}
	want, err := Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	got, err := MarshalOptions{Trusted: valid}.AppendMarshal([]byte("x"), res)
	if err != nil || !bytes.Equal(got[1:], want) || got[0] != 'x' {
		t.Fatalf("trusted valid value: %s, %v; want x%s", got, err, want)
	}

	// What validation would refuse goes out as it is when trusted: the
	// proof that it was not validated (no caller may trust such bytes).
	bad := []byte(`{"a":1,"a":2}`)
	res.StructuredContent = bad
	if _, err := AppendMarshal(nil, res); err == nil || !strings.Contains(err.Error(), "invalid raw JSON") {
		t.Fatalf("untrusted duplicate members: %v, want an invalid raw JSON error", err)
	}
	if got, err := (MarshalOptions{Trusted: bad}).AppendMarshal(nil, res); err != nil || !bytes.Contains(got, bad) {
		t.Fatalf("trusted bytes: %s, %v; want them written as they are", got, err)
	}
	// An equal copy is not the trusted value.
	if _, err := (MarshalOptions{Trusted: bytes.Clone(bad)}).AppendMarshal(nil, res); err == nil {
		t.Fatal("an equal copy of the trusted bytes was not validated")
	}
	// A prefix of the trusted bytes (same start, another length) is not
	// the trusted value.
	res.StructuredContent = bad[:7]
	if _, err := (MarshalOptions{Trusted: bad}).AppendMarshal(nil, res); err == nil {
		t.Fatal("a prefix of the trusted bytes was not validated")
	}
	// Another raw member of the result, holding other bytes, is still
	// validated.
	res.StructuredContent = valid
	res.Extra = Members{{Name: "x", Value: []byte(`{"b":1,"b":2}`)}}
	if _, err := (MarshalOptions{Trusted: valid}).AppendMarshal(nil, res); err == nil {
		t.Fatal("an extra member was not validated")
	}
	// A raw member that takes an object only is validated even when it
	// holds the trusted bytes.
	arr := []byte(`[1]`)
	if _, err := (MarshalOptions{Trusted: arr}).AppendMarshal(nil, &CallToolRequestParams{Name: "t", Arguments: arr}); err == nil || !strings.Contains(err.Error(), "arguments: invalid raw JSON") {
		t.Fatalf("trusted bytes in a member that takes an object only: %v, want an invalid raw JSON error", err)
	}
}

// TestMarshalOptionsMeta: a _meta member holding the very MarshalOptions.Meta
// pointer is written as MetaJSON, and encodes as without the options when
// MetaJSON is its encoding; an equal copy, another type's _meta and a nil
// MetaJSON are encoded as usual.
func TestMarshalOptionsMeta(t *testing.T) {
	shared := &ResultMetaObject{ServerInfo: &Implementation{Name: "s", Version: "1"}}
	enc, err := Marshal(shared)
	if err != nil {
		t.Fatal(err)
	}
	results := []any{
		&CallToolResult{Meta: shared, Content: []ContentBlock{}, ResultType: "complete"},
		&ListToolsResult{Meta: shared, Tools: []Tool{}, ResultType: "complete", CacheScope: CacheScopePublic},
		&ReadResourceResult{Meta: shared, Contents: []ReadResourceResultContentsElem{}, ResultType: "complete", CacheScope: CacheScopePublic},
	}
	for _, res := range results {
		want, err := Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		got, err := MarshalOptions{Meta: shared, MetaJSON: enc}.AppendMarshal(nil, res)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%T: %s, %v; want %s", res, got, err, want)
		}
		// A stand-in shows where MetaJSON is written.
		got, _ = MarshalOptions{Meta: shared, MetaJSON: []byte(`{"x":1}`)}.AppendMarshal(nil, res)
		if !bytes.HasPrefix(got, []byte(`{"_meta":{"x":1},`)) {
			t.Errorf("%T: %s, want MetaJSON as _meta", res, got)
		}
		got, _ = MarshalOptions{Meta: shared}.AppendMarshal(nil, res)
		if !bytes.Equal(got, want) {
			t.Errorf("%T without MetaJSON: %s, want %s", res, got, want)
		}
	}
	copied := *shared
	res := &CallToolResult{Meta: &copied, Content: []ContentBlock{}, ResultType: "complete"}
	want, _ := Marshal(res)
	if got, _ := (MarshalOptions{Meta: shared, MetaJSON: []byte(`{"x":1}`)}).AppendMarshal(nil, res); !bytes.Equal(got, want) {
		t.Errorf("an equal copy of Meta: %s, want %s", got, want)
	}
}
