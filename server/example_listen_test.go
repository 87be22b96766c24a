package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/servertest"
)

// NotifyToolsChanged reaches the listen streams that asked for
// toolsListChanged (R-SUB-01), here after the tools' behaviour changed
// outside AddTool and RemoveTool, which notify by themselves.
func ExampleServer_NotifyToolsChanged() {
	s, _ := server.New(protocol.Implementation{Name: "demo", Version: "1.0.0"})
	ctx := context.Background()
	st, err := servertest.New(s).Listen(ctx, protocol.SubscriptionFilter{ToolsListChanged: server.Ptr(true)})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	ack, _ := st.Next(ctx) // the acknowledgement comes first (R-SUB-02)
	fmt.Println(ack.Method)

	_ = s.NotifyToolsChanged()
	n, _ := st.Next(ctx)
	fmt.Println(n.Method)
	// Output:
	// notifications/subscriptions/acknowledged
	// notifications/tools/list_changed
}

// NotifyResourceUpdated reaches only the streams subscribed to that URI.
func ExampleServer_NotifyResourceUpdated() {
	s, _ := server.New(protocol.Implementation{Name: "notes", Version: "1.0.0"})
	for _, uri := range []string{"note://today", "note://tomorrow"} {
		_ = s.AddResource(protocol.Resource{URI: uri, Name: uri},
			func(_ context.Context, _ *server.Request, uri string, _ map[string]string) ([]protocol.ReadResourceResultContentsElem, error) {
				return server.TextContents(uri, "text/plain", "..."), nil
			})
	}
	ctx := context.Background()
	st, _ := servertest.New(s).Listen(ctx, protocol.SubscriptionFilter{ResourceSubscriptions: []string{"note://today"}})
	defer st.Close()
	_, _ = st.Next(ctx) // the acknowledgement

	_ = s.NotifyResourceUpdated("note://tomorrow") // nobody listens to it
	_ = s.NotifyResourceUpdated("note://today")
	n, _ := st.Next(ctx)
	var p struct{ URI string }
	_ = json.Unmarshal(n.Params, &p)
	fmt.Println(n.Method, p.URI)
	// Output:
	// notifications/resources/updated note://today
}

// Shutdown ends every listen stream with its result (R-SUB-06 on HTTP)
// and waits for the requests still running.
func ExampleServer_Shutdown() {
	s, _ := server.New(protocol.Implementation{Name: "demo", Version: "1.0.0"})
	ctx := context.Background()
	st, _ := servertest.New(s).Listen(ctx, protocol.SubscriptionFilter{ToolsListChanged: server.Ptr(true)})
	_, _ = st.Next(ctx) // the acknowledgement

	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	fmt.Println("shutdown:", s.Shutdown(ctx))
	_, err := st.Next(ctx)
	fmt.Println("stream ended:", errors.Is(err, io.EOF))
	var res struct{ ResultType string }
	_ = json.Unmarshal(st.Result(), &res)
	fmt.Println("result:", res.ResultType)
	// Output:
	// shutdown: <nil>
	// stream ended: true
	// result: complete
}
