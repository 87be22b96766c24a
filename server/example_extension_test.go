package server_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/servertest"
)

// A tiny extension: it advertises itself under its id, adds one method
// whose Mcp-Name mirrors its noteId, and answers only a client that
// declared it on the request (R-VER-04). Its result is a plain value that
// encodes to a JSON object; the runtime adds resultType and _meta.
func ExampleExtension() {
	const id = "com.example/notes"
	notes := map[string]string{"n1": "buy milk"}
	notesGet := func(_ context.Context, r *server.Request, params json.RawMessage) (server.Result, error) {
		if !r.Declares(id) {
			return nil, server.MissingExtension(id)
		}
		var p struct {
			NoteID string `json:"noteId"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, server.InvalidParams("Invalid params: "+err.Error(), nil)
		}
		text, ok := notes[p.NoteID]
		if !ok {
			return nil, server.InvalidParams("Unknown note: "+p.NoteID, nil)
		}
		return map[string]string{"noteId": p.NoteID, "text": text}, nil
	}
	s, err := server.New(protocol.Implementation{Name: "notes", Version: "1.0.0"},
		server.WithExtension(server.Extension{
			ID: id,
			Methods: map[string]server.ExtensionMethod{
				"notes/get": {NameMember: "noteId", Handle: notesGet},
			},
		}),
		server.WithoutServerInfo())
	if err != nil {
		fmt.Println(err)
		return
	}
	c := servertest.New(s)
	ctx := context.Background()
	declared := servertest.WithCapabilities(protocol.ClientCapabilities{
		Extensions: map[string]protocol.JSONObject{id: protocol.JSONObject("{}")},
	})

	res, err := c.Do(ctx, "notes/get", "n1", map[string]any{"noteId": "n1"}, declared)
	fmt.Println(string(res), err)
	_, err = c.Do(ctx, "notes/get", "n1", map[string]any{"noteId": "n1"})
	fmt.Println(err)
	// Output:
	// {"resultType":"complete","noteId":"n1","text":"buy milk"} <nil>
	// servertest: HTTP 400: mcp error -32021: Missing required client capability
}
