package typed

import (
	"context"
	"reflect"
	"testing"

	"github.com/goccy/go-json/jsontext"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/internal/testkit"
	"github.com/mcpwire/mcpwire/server/streamhttp"
)

// keeper decodes itself by UnmarshalJSONFrom, which goccy calls as it
// calls UnmarshalJSON, and keeps the address of its receiver.
type keeper struct {
	V    string
	self *keeper
}

func (k *keeper) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	v, err := d.ReadValue()
	if err != nil {
		return err
	}
	k.V, k.self = string(v), k
	return nil
}

type keepIn struct {
	K keeper `json:"k"`
}

// TestDecodesItselfFrom: an In with a type that decodes itself by
// UnmarshalJSONFrom is decoded into a value of its own call, not by
// goccy.UnmarshalOf into its reused copy: the receiver address a method
// keeps is not shared with the next call, which overwrote it (both calls
// kept the same address, whose V was no longer either call's).
func TestDecodesItselfFrom(t *testing.T) {
	if !decodesItself(reflect.TypeFor[keepIn](), map[reflect.Type]bool{}) {
		t.Error("decodesItself(keepIn) = false, want true")
	}
	s, err := server.New(protocol.Implementation{Name: "t", Version: "1"})
	if err != nil {
		t.Fatal(err)
	}
	var kept []*keeper
	if err := AddTool(s, protocol.Tool{Name: "t"}, func(_ context.Context, _ *server.Request, in keepIn) (struct{}, error) {
		kept = append(kept, in.K.self)
		return struct{}{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	h := testkit.Handler(s, streamhttp.Options{})
	for _, v := range []string{"first", "second"} {
		testkit.Post(t, h, testkit.Rpc(1, protocol.MethodToolsCall, testkit.Params(testkit.M{"name": "t", "arguments": testkit.M{"k": testkit.M{"V": v}}})), nil)
	}
	if len(kept) != 2 {
		t.Fatalf("%d calls ran, want 2", len(kept))
	}
	if kept[0] == kept[1] || kept[0].V != `{"V":"first"}` || kept[1].V != `{"V":"second"}` {
		t.Errorf("the receivers kept: %p %+v, %p %+v; want two of their own calls", kept[0], *kept[0], kept[1], *kept[1])
	}
}
