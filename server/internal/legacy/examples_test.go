package legacy

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
)

// A projected example: the message sent to one revision and how to check
// it, or the reason it cannot be sent.
type projected struct {
	msg    []byte
	def    string // the definition the payload must validate against
	method string
	result bool
	// refused: the revision cannot carry it (the bridge's H12 error, or a
	// message the session never sends)
	refused error
}

// exampleKinds says, for each folder of the 2026-07-28 examples that holds
// a message the server sends in a session (or a part of one), how to build
// and project it. Folders not listed hold client messages.
var exampleKinds = map[string]func(t *testing.T, raw []byte, r Rev) projected{
	// results
	"CallToolResult":              resultOf[protocol.CallToolResult]("tools/call"),
	"CompleteResult":              resultOf[protocol.CompleteResult]("completion/complete"),
	"GetPromptResult":             resultOf[protocol.GetPromptResult]("prompts/get"),
	"ListPromptsResult":           resultOf[protocol.ListPromptsResult]("prompts/list"),
	"ListResourceTemplatesResult": resultOf[protocol.ListResourceTemplatesResult]("resources/templates/list"),
	"ListResourcesResult":         resultOf[protocol.ListResourcesResult]("resources/list"),
	"ListToolsResult":             resultOf[protocol.ListToolsResult]("tools/list"),
	"ReadResourceResult":          resultOf[protocol.ReadResourceResult]("resources/read"),
	// whole responses: their result
	"CallToolResultResponse":              inResponse(resultOf[protocol.CallToolResult]("tools/call")),
	"CompleteResultResponse":              inResponse(resultOf[protocol.CompleteResult]("completion/complete")),
	"GetPromptResultResponse":             inResponse(resultOf[protocol.GetPromptResult]("prompts/get")),
	"ListPromptsResultResponse":           inResponse(resultOf[protocol.ListPromptsResult]("prompts/list")),
	"ListResourceTemplatesResultResponse": inResponse(resultOf[protocol.ListResourceTemplatesResult]("resources/templates/list")),
	"ListResourcesResultResponse":         inResponse(resultOf[protocol.ListResourcesResult]("resources/list")),
	"ListToolsResultResponse":             inResponse(resultOf[protocol.ListToolsResult]("tools/list")),
	"ReadResourceResultResponse":          inResponse(resultOf[protocol.ReadResourceResult]("resources/read")),
	// never sent in a session
	"DiscoverResult":                        resultOf[protocol.DiscoverResult](""),
	"DiscoverResultResponse":                inResponse(resultOf[protocol.DiscoverResult]("")),
	"SubscriptionsListenResult":             resultOf[protocol.SubscriptionsListenResult](""),
	"SubscriptionsListenResultResponse":     inResponse(resultOf[protocol.SubscriptionsListenResult]("")),
	"InputRequiredResult":                   resultOf[protocol.InputRequiredResult](""),
	"SubscriptionsAcknowledgedNotification": notificationOf[protocol.SubscriptionsAcknowledgedNotification](),
	// notifications, and their params
	"CancelledNotification":             notificationOf[protocol.CancelledNotification](),
	"LoggingMessageNotification":        notificationOf[protocol.LoggingMessageNotification](),
	"ProgressNotification":              notificationOf[protocol.ProgressNotification](),
	"PromptListChangedNotification":     notificationOf[protocol.PromptListChangedNotification](),
	"ResourceListChangedNotification":   notificationOf[protocol.ResourceListChangedNotification](),
	"ResourceUpdatedNotification":       notificationOf[protocol.ResourceUpdatedNotification](),
	"ToolListChangedNotification":       notificationOf[protocol.ToolListChangedNotification](),
	"CancelledNotificationParams":       wrapped(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":%s}`, notificationOf[protocol.CancelledNotification]()),
	"LoggingMessageNotificationParams":  wrapped(`{"jsonrpc":"2.0","method":"notifications/message","params":%s}`, notificationOf[protocol.LoggingMessageNotification]()),
	"ProgressNotificationParams":        wrapped(`{"jsonrpc":"2.0","method":"notifications/progress","params":%s}`, notificationOf[protocol.ProgressNotification]()),
	"ResourceUpdatedNotificationParams": wrapped(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":%s}`, notificationOf[protocol.ResourceUpdatedNotification]()),
	// parts of results
	"TextContent":          wrapped(`{"resultType":"complete","content":[%s]}`, resultOf[protocol.CallToolResult]("tools/call")),
	"ImageContent":         wrapped(`{"resultType":"complete","content":[%s]}`, resultOf[protocol.CallToolResult]("tools/call")),
	"AudioContent":         wrapped(`{"resultType":"complete","content":[%s]}`, resultOf[protocol.CallToolResult]("tools/call")),
	"ResourceLink":         wrapped(`{"resultType":"complete","content":[%s]}`, resultOf[protocol.CallToolResult]("tools/call")),
	"EmbeddedResource":     wrapped(`{"resultType":"complete","content":[%s]}`, resultOf[protocol.CallToolResult]("tools/call")),
	"Tool":                 wrapped(`{"resultType":"complete","ttlMs":0,"cacheScope":"private","tools":[%s]}`, resultOf[protocol.ListToolsResult]("tools/list")),
	"Resource":             wrapped(`{"resultType":"complete","ttlMs":0,"cacheScope":"private","resources":[%s]}`, resultOf[protocol.ListResourcesResult]("resources/list")),
	"TextResourceContents": wrapped(`{"resultType":"complete","ttlMs":0,"cacheScope":"private","contents":[%s]}`, resultOf[protocol.ReadResourceResult]("resources/read")),
	"BlobResourceContents": wrapped(`{"resultType":"complete","ttlMs":0,"cacheScope":"private","contents":[%s]}`, resultOf[protocol.ReadResourceResult]("resources/read")),
	// server-to-client requests, through the bridge
	"ElicitRequest":                  inputRequest,
	"CreateMessageRequest":           inputRequest,
	"ListRootsRequest":               inputRequest,
	"ElicitRequestFormParams":        wrapped(`{"method":"elicitation/create","params":%s}`, inputRequest),
	"ElicitRequestURLParams":         wrapped(`{"method":"elicitation/create","params":%s}`, inputRequest),
	"CreateMessageRequestParams":     wrapped(`{"method":"sampling/createMessage","params":%s}`, inputRequest),
	"SamplingMessage":                wrapped(`{"method":"sampling/createMessage","params":{"maxTokens":10,"messages":[%s]}}`, inputRequest),
	"ModelPreferences":               wrapped(`{"method":"sampling/createMessage","params":{"maxTokens":10,"messages":[],"modelPreferences":%s}}`, inputRequest),
	"ToolUseContent":                 wrapped(`{"method":"sampling/createMessage","params":{"maxTokens":10,"messages":[{"role":"assistant","content":%s}]}}`, inputRequest),
	"ToolResultContent":              wrapped(`{"method":"sampling/createMessage","params":{"maxTokens":10,"messages":[{"role":"user","content":%s}]}}`, inputRequest),
	"StringSchema":                   wrapped(`{"method":"elicitation/create","params":{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{"p":%s}}}}`, inputRequest),
	"NumberSchema":                   wrapped(`{"method":"elicitation/create","params":{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{"p":%s}}}}`, inputRequest),
	"BooleanSchema":                  wrapped(`{"method":"elicitation/create","params":{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{"p":%s}}}}`, inputRequest),
	"UntitledSingleSelectEnumSchema": wrapped(`{"method":"elicitation/create","params":{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{"p":%s}}}}`, inputRequest),
	"TitledSingleSelectEnumSchema":   wrapped(`{"method":"elicitation/create","params":{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{"p":%s}}}}`, inputRequest),
	"UntitledMultiSelectEnumSchema":  wrapped(`{"method":"elicitation/create","params":{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{"p":%s}}}}`, inputRequest),
	"TitledMultiSelectEnumSchema":    wrapped(`{"method":"elicitation/create","params":{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{"p":%s}}}}`, inputRequest),
	"InputRequests":                  inputRequests,
	// errors
	"InternalError":                        errorOf,
	"InvalidParamsError":                   errorOf,
	"MethodNotFoundError":                  errorOf,
	"ParseError":                           errorOf,
	"MissingRequiredClientCapabilityError": errorOf,
}

// clientExamples are the folders that hold messages (or parts) a client
// sends, or transport errors of 2026-07-28: none is projected.
var clientExamples = map[string]bool{
	"CallToolRequest": true, "CallToolRequestParams": true, "CompleteRequest": true, "CompleteRequestParams": true,
	"DiscoverRequest": true, "GetPromptRequest": true, "GetPromptRequestParams": true, "ListPromptsRequest": true,
	"ListResourceTemplatesRequest": true, "ListResourcesRequest": true, "ListToolsRequest": true, "ReadResourceRequest": true,
	"SubscriptionsListenRequest": true, "PaginatedRequestParams": true, "ClientCapabilities": true, "ServerCapabilities": true,
	"ElicitResult": true, "CreateMessageResult": true, "ListRootsResult": true, "InputResponses": true, "Root": true,
	"HeaderMismatchError": true, "UnsupportedProtocolVersionError": true,
}

// resultOf decodes an example as a result of type T and projects it;
// method "" marks a result never sent in a session.
func resultOf[T any](method string) func(t *testing.T, raw []byte, r Rev) projected {
	return func(t *testing.T, raw []byte, r Rev) projected {
		v := new(T)
		if err := protocol.Unmarshal(raw, v); err != nil {
			t.Skipf("the example does not decode strictly (see testdata/examples-expectations.txt): %v", err)
		}
		out, err := AppendResult(nil, r, v)
		if method == "" {
			if err == nil {
				t.Fatalf("%T was projected for %s: %s", v, r, out)
			}
			return projected{refused: err}
		}
		if err != nil {
			t.Fatalf("AppendResult(%s, %T): %v", r, v, err)
		}
		return projected{msg: response(out), def: resultDefs[method], method: method, result: true}
	}
}

func notificationOf[T any]() func(t *testing.T, raw []byte, r Rev) projected {
	return func(t *testing.T, raw []byte, r Rev) projected {
		v := new(T)
		if err := protocol.Unmarshal(raw, v); err != nil {
			t.Fatalf("decode %T: %v", v, err)
		}
		out, err := AppendNotification(nil, r, v)
		method := methodOf(raw)
		def, ok := notificationDefs[method]
		if !ok {
			if err == nil {
				t.Fatalf("%s was projected for %s: %s", method, r, out)
			}
			return projected{refused: err}
		}
		if err != nil {
			t.Fatalf("AppendNotification(%s, %s): %v", r, method, err)
		}
		return projected{msg: out, def: def, method: method}
	}
}

// inResponse takes the result out of a whole response.
func inResponse(f func(t *testing.T, raw []byte, r Rev) projected) func(t *testing.T, raw []byte, r Rev) projected {
	return func(t *testing.T, raw []byte, r Rev) projected {
		var env struct {
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(raw, &env); err != nil || env.Result == nil {
			t.Fatalf("no result in %s", raw)
		}
		return f(t, env.Result, r)
	}
}

// wrapped puts an example inside a message.
func wrapped(format string, f func(t *testing.T, raw []byte, r Rev) projected) func(t *testing.T, raw []byte, r Rev) projected {
	return func(t *testing.T, raw []byte, r Rev) projected {
		return f(t, []byte(strings.Replace(format, "%s", string(raw), 1)), r)
	}
}

func inputRequest(t *testing.T, raw []byte, r Rev) projected {
	var req protocol.InputRequest
	if err := protocol.Unmarshal(raw, &req); err != nil {
		t.Fatalf("decode InputRequest: %v", err)
	}
	method, out, e := InputRequest(r, protocol.StringRequestId("mcpwire-test"), "k", req)
	if e != nil {
		return projected{refused: e}
	}
	return projected{msg: out, def: requestDefs[method], method: method}
}

func inputRequests(t *testing.T, raw []byte, r Rev) projected {
	var reqs protocol.InputRequests
	if err := protocol.Unmarshal(raw, &reqs); err != nil {
		t.Fatalf("decode InputRequests: %v", err)
	}
	keys := sortedKeys(reqs)
	var first projected
	for i, k := range keys {
		method, out, e := InputRequest(r, protocol.StringRequestId("mcpwire-"+k), k, reqs[k])
		p := projected{msg: out, def: requestDefs[method], method: method}
		if e != nil {
			p = projected{refused: e}
		}
		if i == 0 {
			first = p
			continue
		}
		if p.refused == nil {
			if err := checkMessage(t, r, p.msg, p.def, p.method, false, true); err != nil {
				t.Errorf("%s: %v\n%s", k, err, shorten(p.msg))
			}
		}
	}
	return first
}

func errorOf(t *testing.T, raw []byte, r Rev) projected {
	var e protocol.Error
	var env struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(raw, &env) == nil && env.Error != nil {
		raw = env.Error // a whole error response
	}
	if err := protocol.Unmarshal(raw, &e); err != nil {
		t.Fatalf("decode Error: %v", err)
	}
	id := protocol.IntRequestId(1)
	out, err := AppendError(nil, r, &id, ProjectError(Error{Code: e.Code, Message: e.Message, Data: e.Data}, r, false))
	if err != nil {
		t.Fatalf("AppendError: %v", err)
	}
	def := "JSONRPCError"
	if r == Rev20251125 {
		def = "JSONRPCErrorResponse"
	}
	return projected{msg: out, def: def}
}

// refusable reports whether err is an allowed refusal: the bridge's H12
// error, or a message the session never sends.
func refusable(err error) bool {
	var e *Error
	if errors.As(err, &e) {
		return e.Code == protocol.CodeInternalError && strings.Contains(e.Message, "cannot carry")
	}
	return strings.Contains(err.Error(), "never sent") || strings.Contains(err.Error(), "not a result the server sends") ||
		strings.Contains(err.Error(), "not a notification the server sends")
}

// TestSpecExamplesProjected projects every example of 2026-07-28 that is a
// message the server sends in a session (or a part of one, placed in such
// a message) onto each legacy revision: the output validates against the
// revision's schema.json (JSONRPCMessage and the message's definition)
// and, for 2025-11-25, decodes strictly with package mcp20251125. What a
// revision cannot carry must be refused with the H12 error, never sent
// invalid; messages a session never sends must be refused.
func TestSpecExamplesProjected(t *testing.T) {
	root := filepath.Join(specDir(t), "schema", "2026-07-28", "examples")
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	projectedN, refused := 0, map[string][]string{}
	for _, d := range dirs {
		build, ok := exampleKinds[d.Name()]
		if !ok {
			if !clientExamples[d.Name()] {
				t.Errorf("example folder %s is neither projected nor listed as a client message", d.Name())
			}
			continue
		}
		files, _ := filepath.Glob(filepath.Join(root, d.Name(), "*.json"))
		for _, f := range files {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range Revisions() {
				name := d.Name() + "/" + filepath.Base(f) + "@" + r.String()
				t.Run(name, func(t *testing.T) {
					p := build(t, raw, r)
					if p.refused != nil {
						if !refusable(p.refused) {
							t.Fatalf("refused with %v", p.refused)
						}
						refused[r.String()] = append(refused[r.String()], d.Name()+"/"+filepath.Base(f)+": "+p.refused.Error())
						return
					}
					projectedN++
					if err := checkMessage(t, r, p.msg, p.def, p.method, p.result, true); err != nil {
						t.Fatalf("%v\n%s", err, shorten(p.msg))
					}
				})
			}
		}
	}
	var revs []string
	for r := range refused {
		revs = append(revs, r)
	}
	sort.Strings(revs)
	for _, r := range revs {
		t.Logf("refused in %s:\n  %s", r, strings.Join(refused[r], "\n  "))
	}
	t.Logf("%d projections validated", projectedN)
}
