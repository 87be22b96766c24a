package server_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/servertest"
)

// A static resource: one URI, read with resources/read. A URI nobody
// registered is -32602 "Resource not found" (R-RSRC-03).
func ExampleServer_AddResource() {
	s, _ := server.New(protocol.Implementation{Name: "notes", Version: "1.0.0"})
	_ = s.AddResource(protocol.Resource{URI: "note://today", Name: "today", MIMEType: server.Ptr("text/plain")},
		func(_ context.Context, _ *server.Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
			return server.TextContents(uri, "text/plain", "Buy milk."), nil
		})
	c := servertest.New(s)
	ctx := context.Background()

	res, err := c.ReadResource(ctx, "note://today")
	if err != nil {
		fmt.Println(err)
		return
	}
	tc := res.Contents[0].Value.(*protocol.TextResourceContents)
	fmt.Println(tc.URI, *tc.MIMEType, tc.Text)

	_, err = c.ReadResource(ctx, "note://tomorrow")
	var e *servertest.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Message)
	}
	// Output:
	// note://today text/plain Buy milk.
	// -32602 Resource not found
}

// A resource template (RFC 6570): the handler gets the matched variables,
// percent-decoded, and must validate them before using them in a path.
func ExampleServer_AddResourceTemplate() {
	s, _ := server.New(protocol.Implementation{Name: "users", Version: "1.0.0"})
	_ = s.AddResourceTemplate(protocol.ResourceTemplate{URITemplate: "users://{id}/profile", Name: "profile"},
		func(_ context.Context, _ *server.Request, uri string, vars map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
			if vars["id"] == "" {
				return nil, server.ErrNotFound
			}
			return server.TextContents(uri, "text/plain", "profile of "+vars["id"]), nil
		})
	res, err := servertest.New(s).ReadResource(context.Background(), "users://ada%20l/profile")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Contents[0].Value.(*protocol.TextResourceContents).Text)
	// Output:
	// profile of ada l
}
