package protocol

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	goccy "github.com/goccy/go-json"
)

// The baselines below are plain, non-validating structs with the same
// fields as the generated types, decoded and encoded by goccy/go-json. The
// benchmarks compare strict mcpwire against them within one run; see
// docs/performance.md for the table and the targets.

type plainImplementation struct {
	Name        string  `json:"name"`
	Title       *string `json:"title,omitempty"`
	Version     string  `json:"version"`
	Description *string `json:"description,omitempty"`
	WebsiteURL  *string `json:"websiteUrl,omitempty"`
}

type plainClientCapabilities struct {
	Elicitation  *struct{ Form, URL goccy.RawMessage }      `json:"elicitation,omitempty"`
	Experimental map[string]goccy.RawMessage                `json:"experimental,omitempty"`
	Extensions   map[string]goccy.RawMessage                `json:"extensions,omitempty"`
	Roots        *struct{}                                  `json:"roots,omitempty"`
	Sampling     *struct{ Context, Tools goccy.RawMessage } `json:"sampling,omitempty"`
}

type plainRequestMeta struct {
	ClientCapabilities plainClientCapabilities `json:"io.modelcontextprotocol/clientCapabilities"`
	ClientInfo         *plainImplementation    `json:"io.modelcontextprotocol/clientInfo,omitempty"`
	LogLevel           *string                 `json:"io.modelcontextprotocol/logLevel,omitempty"`
	ProtocolVersion    string                  `json:"io.modelcontextprotocol/protocolVersion"`
	ProgressToken      any                     `json:"progressToken,omitempty"`
}

type plainCallToolRequest struct {
	ID      any    `json:"id"`
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  struct {
		Meta           plainRequestMeta            `json:"_meta"`
		Arguments      goccy.RawMessage            `json:"arguments,omitempty"`
		InputResponses map[string]goccy.RawMessage `json:"inputResponses,omitempty"`
		Name           string                      `json:"name"`
		RequestState   *string                     `json:"requestState,omitempty"`
	} `json:"params"`
}

type plainTextContent struct {
	Meta        goccy.RawMessage `json:"_meta,omitempty"`
	Annotations *struct {
		Audience     []string `json:"audience,omitempty"`
		LastModified *string  `json:"lastModified,omitempty"`
		Priority     *float64 `json:"priority,omitempty"`
	} `json:"annotations,omitempty"`
	Text string `json:"text"`
	Type string `json:"type"`
}

type plainCallToolResult struct {
	Meta              *struct{ ServerInfo *plainImplementation } `json:"_meta,omitempty"`
	Content           []plainTextContent                         `json:"content"`
	IsError           *bool                                      `json:"isError,omitempty"`
	ResultType        string                                     `json:"resultType"`
	StructuredContent goccy.RawMessage                           `json:"structuredContent,omitempty"`
}

func callToolRequestExample(b *testing.B) []byte {
	data, err := os.ReadFile(filepath.Join(specDir(b), "schema", Revision, "examples", "CallToolRequest", "call-tool-request.json"))
	if err != nil {
		b.Fatal(err)
	}
	return data
}

func BenchmarkDecodeCallToolRequest(b *testing.B) {
	data := callToolRequestExample(b)
	b.Run("mcpwire-strict", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			var v CallToolRequest
			if err := Unmarshal(data, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("goccy-plain", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			var v plainCallToolRequest
			if err := goccy.Unmarshal(data, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func threeBlockResult() (*CallToolResult, *plainCallToolResult) {
	texts := []string{"The weather in New York is 72°F and sunny.", "Humidity: 45%, wind 5 mph from the west.", "Forecast: clear skies through the evening <no rain>."}
	r := &CallToolResult{ResultType: "complete"}
	p := &plainCallToolResult{ResultType: "complete"}
	for _, t := range texts {
		r.Content = append(r.Content, ContentBlock{Value: &TextContent{Text: t}})
		p.Content = append(p.Content, plainTextContent{Text: t, Type: "text"})
	}
	return r, p
}

func BenchmarkEncodeCallToolResult(b *testing.B) {
	r, p := threeBlockResult()
	b.Run("mcpwire-strict", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Marshal(r); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("goccy-plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := goccy.Marshal(p); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// listTools50 builds a ListToolsResult with 50 tools, each with an input
// schema, annotations and an icon, encoded by mcpwire.
func listTools50(b *testing.B) []byte {
	r := &ListToolsResult{ResultType: "complete", CacheScope: CacheScopePrivate}
	for i := range 50 {
		title := "Tool number " + strconv.Itoa(i)
		desc := "Looks things up in the catalogue and returns what it finds, item " + strconv.Itoa(i)
		ro := true
		r.Tools = append(r.Tools, Tool{
			Name:        "tool_" + strconv.Itoa(i),
			Title:       &title,
			Description: &desc,
			InputSchema: ToolInputSchema{Extra: Members{
				{Name: "properties", Value: []byte(`{"query":{"type":"string","description":"what to look for"},"limit":{"type":"integer","minimum":1}}`)},
				{Name: "required", Value: []byte(`["query"]`)},
			}},
			Annotations: &ToolAnnotations{ReadOnlyHint: &ro},
			Icons:       []Icon{{Src: "https://example.com/icon.png"}},
		})
	}
	data, err := Marshal(r)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

func BenchmarkDecodeListToolsResult50(b *testing.B) {
	data := listTools50(b)
	b.Run("mcpwire-strict", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			var v ListToolsResult
			if err := Unmarshal(data, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("goccy-map", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			var v map[string]any
			if err := goccy.Unmarshal(data, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}
