package main

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Every form of {@link …} found in the 2026-07-28 schema's descriptions
// (the older pins have none), rendered against the pinned model: a link to
// a generated type is a Go doc link, a member path links the Go field (of
// the inline type for a nested path), text fused to the target is split
// off, and a name that is not a generated type is plain text.
func TestDocLinkForms(t *testing.T) {
	l := docLinker{m: pinned(t).Model}
	for _, c := range []struct{ raw, want string }{
		// plain links to definitions
		{"Additional properties describing a {@link Tool} to clients.", "Additional properties describing a [Tool] to clients."},
		{"(except for {@link Tool},\nwhere `annotations.title` should", "(except for [Tool],\nwhere `annotations.title` should"},
		{"the structuredContent field of a {@link CallToolResult}.", "the structuredContent field of a [CallToolResult]."},
		{"Extends {@link MetaObject} with additional result-specific fields.", "Extends [MetaObject] with additional result-specific fields."},
		{"Extends {@link ResultMetaObject} with the subscription-stream", "Extends [ResultMetaObject] with the subscription-stream"},
		{"Keys correspond to the keys in the {@link InputRequests} map;", "Keys correspond to the keys in the [InputRequests] map;"},
		{"the result contains an {@link InputRequiredResult} object", "the result contains an [InputRequiredResult] object"},
		{"signalled instead by {@link MissingRequiredClientCapabilityError} (`-32021`).", "signalled instead by [MissingRequiredClientCapabilityError] (`-32021`)."},
		{"it MUST return an\n{@link UnsupportedProtocolVersionError}.", "it MUST return an\n[UnsupportedProtocolVersionError]."},
		{"The {@link Implementation} schema requires `name`", "The [Implementation] schema requires `name`"},
		{"an array of {@link Root} objects", "an array of [Root] objects"},
		{"This is similar to {@link SamplingMessage}, but", "This is similar to [SamplingMessage], but"},
		{"Use {@link TitledSingleSelectEnumSchema} instead.", "Use [TitledSingleSelectEnumSchema] instead."},
		{"from a previous {@link ToolUseContent}.", "from a previous [ToolUseContent]."},
		{"carried by a\n{@link SubscriptionsListenResult}. All", "carried by a\n[SubscriptionsListenResult]. All"},
		{"Indicates the type of a {@link Result} object", "Indicates the type of a [Result] object"},
		// member paths
		{"the same format as {@link CallToolResult.content} and", "the same format as [CallToolResult.Content] and"},
		{"If the tool defined an {@link Tool.outputSchema}, this", "If the tool defined an [Tool.OutputSchema], this"},
		{"provided but {@link ClientCapabilities.sampling.tools} is not declared.", "provided but [ClientCapabilitiesSampling.Tools] is not declared."},
		{"if the client declares\n{@link ClientCapabilities.sampling.context}.", "if the client declares\n[ClientCapabilitiesSampling.Context]."},
		// text fused to the target with a backtick
		{"Keys MUST follow the {@link MetaObject`_meta` key naming rules}, with a\nmandatory prefix.", "Keys MUST follow the `_meta` key naming rules ([MetaObject]), with a\nmandatory prefix."},
		// method names fused to the target: the link goes after the next word
		// when that word is request(s), notification(s), stream or subscription
		{"The result returned by the server for a {@link CallToolRequesttools/call} request.", "The result returned by the server for a tools/call request ([CallToolRequest])."},
		{"for a {@link CompleteRequestcompletion/complete} request.", "for a completion/complete request ([CompleteRequest])."},
		{"for a {@link CreateMessageRequestsampling/createMessage} request.\nThe client", "for a sampling/createMessage request ([CreateMessageRequest]).\nThe client"},
		{"for a {@link DiscoverRequestserver/discover} request.", "for a server/discover request ([DiscoverRequest])."},
		{"for an {@link ElicitRequestelicitation/create} request.", "for an elicitation/create request ([ElicitRequest])."},
		{"for a {@link GetPromptRequestprompts/get} request.", "for a prompts/get request ([GetPromptRequest])."},
		{"for a {@link ListPromptsRequestprompts/list} request.", "for a prompts/list request ([ListPromptsRequest])."},
		{"for a {@link ListResourceTemplatesRequestresources/templates/list} request.", "for a resources/templates/list request ([ListResourceTemplatesRequest])."},
		{"in the results of {@link ListResourcesRequestresources/list} requests.", "in the results of resources/list requests ([ListResourcesRequest])."},
		{"for a {@link ListRootsRequestroots/list} request.", "for a roots/list request ([ListRootsRequest])."},
		{"for a {@link ListToolsRequesttools/list} request.", "for a tools/list request ([ListToolsRequest])."},
		{"for a {@link ReadResourceRequestresources/read} request.", "for a resources/read request ([ReadResourceRequest])."},
		{"MUST NOT send any {@link LoggingMessageNotificationnotifications/message}\nnotifications for this request.", "MUST NOT send any notifications/message\nnotifications ([LoggingMessageNotification]) for this request."},
		{"(as represented by {@link ProgressNotificationnotifications/progress}). The", "(as represented by notifications/progress ([ProgressNotification])). The"},
		{"Parameters for a {@link ProgressNotificationnotifications/progress} notification.", "Parameters for a notifications/progress notification ([ProgressNotification])."},
		{"If true, receive {@link PromptListChangedNotificationnotifications/prompts/list_changed}.", "If true, receive notifications/prompts/list_changed ([PromptListChangedNotification])."},
		{"If true, receive {@link ResourceListChangedNotificationnotifications/resources/list_changed}.", "If true, receive notifications/resources/list_changed ([ResourceListChangedNotification])."},
		{"If true, receive {@link ToolListChangedNotificationnotifications/tools/list_changed}.", "If true, receive notifications/tools/list_changed ([ToolListChangedNotification])."},
		{"Subscribe to {@link ResourceUpdatedNotificationnotifications/resources/updated} for these resource URIs.", "Subscribe to notifications/resources/updated ([ResourceUpdatedNotification]) for these resource URIs."},
		{"Parameters for a {@link SubscriptionsAcknowledgedNotificationnotifications/subscriptions/acknowledged} notification.", "Parameters for a notifications/subscriptions/acknowledged notification ([SubscriptionsAcknowledgedNotification])."},
		{"to terminate a {@link SubscriptionsListenRequestsubscriptions/listen} stream: it", "to terminate a subscriptions/listen stream ([SubscriptionsListenRequest]): it"},
		{"The response to a {@link SubscriptionsListenRequestsubscriptions/listen}\nrequest, signalling", "The response to a subscriptions/listen\nrequest ([SubscriptionsListenRequest]), signalling"},
		{"to acknowledge that a\n{@link SubscriptionsListenRequestsubscriptions/listen} subscription has been", "to acknowledge that a\nsubscriptions/listen subscription ([SubscriptionsListenRequest]) has been"},
		{"may opt in to on a\n{@link SubscriptionsListenRequestsubscriptions/listen} request.\n\nEach", "may opt in to on a\nsubscriptions/listen request ([SubscriptionsListenRequest]).\n\nEach"},
		{"delivered via a\n{@link SubscriptionsListenRequestsubscriptions/listen} stream, so the", "delivered via a\nsubscriptions/listen stream ([SubscriptionsListenRequest]), so the"},
		// the documented {@link X | text} form
		{"see {@link Tool | the tool definition}.", "see the tool definition ([Tool])."},
		{"see {@link Tool.outputSchema|its output schema}.", "see its output schema ([Tool.OutputSchema])."},
		// two links in one description
		{"{@link Tool} and {@link CallToolRequesttools/call} requests", "[Tool] and tools/call requests ([CallToolRequest])"},
		// names that are not generated types, or paths that reach no field: plain text
		{"see {@link NoSuchType}.", "see NoSuchType."},
		{"see {@link NoSuchType | the missing type}.", "see the missing type."},
		{"see {@link Tool.noSuchMember}.", "see Tool.noSuchMember."},
		{"see {@link CallToolResult.content.deeper}.", "see CallToolResult.content.deeper."},
		{"a {@link NoSuchRequestfoo/bar} request", "a foo/bar request"},
		// a type name followed by a lowercase word that is not a method is not split
		{"a {@link Toolkit} b", "a Toolkit b"},
		// no link: unchanged
		{"plain [text] and {braces}", "plain [text] and {braces}"},
	} {
		if got := l.render(c.raw); got != c.want {
			t.Errorf("render(%q)\n got %q\nwant %q", c.raw, got, c.want)
		}
	}
}

// linkLeftRE finds what a generated comment must not contain: a raw
// TypeScript link, or a type name fused with a method name.
var linkLeftRE = regexp.MustCompile(`@link|[A-Z][A-Za-z]+(?:Request|Notification|Result)[a-z]+/`)

// docLinkRE finds Go doc links to this package in a comment.
var docLinkRE = regexp.MustCompile(`\[([A-Z][A-Za-z0-9_]*)(?:\.([A-Za-z_][A-Za-z0-9_]*))?\]`)

// TestGeneratedDocComments checks the comments of every generated package,
// as Generate produces it and as it is on disk under protocol/ (and ext/:
// an extension package's links to core types read [protocol.X], which
// docLinkRE does not take for a link of the package), and of the
// legacy projection tables: no raw {@link} and no fused method name is
// left, and every Go doc link ([Name], [Name.Field]) names a symbol of its
// package, as go/doc resolves it.
func TestGeneratedDocComments(t *testing.T) {
	sets := map[string]map[string][]byte{}
	for _, tg := range targets {
		sets["generated "+tg.Dir] = generated(t, tg).Files
		sets["on disk "+tg.Dir] = readGenFiles(t, filepath.Join("..", filepath.FromSlash(tg.Dir)))
	}
	for _, tg := range extTargets {
		res, _ := extGenerated(t, tg)
		sets["generated "+tg.Dir] = res.Files
		sets["on disk "+tg.Dir] = readGenFiles(t, filepath.Join("..", filepath.FromSlash(tg.Dir)))
	}
	legacy, _, err := generateLegacy(legacyInputFor(t))
	if err != nil {
		t.Fatal(err)
	}
	sets["generated "+legacyDir] = legacy
	for _, set := range slices.Sorted(maps.Keys(sets)) {
		// The legacy tables are one file of a hand-written package and
		// carry no schema descriptions; the generated packages link to
		// Marshal and Unmarshal at least.
		if links := checkDocComments(t, set, sets[set]); links == 0 && !strings.HasSuffix(set, legacyDir) {
			t.Errorf("%s: no doc links at all: is the check looking at the comments?", set)
		}
	}
}

// readGenFiles reads the *_gen.go files of a folder.
func readGenFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*_gen.go"))
	if err != nil || len(names) == 0 {
		t.Fatalf("%s: no generated files (%v)", dir, err)
	}
	out := map[string][]byte{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(n)] = b
	}
	return out
}

// checkDocComments parses one package's files and checks their comments;
// it returns the number of Go doc links seen.
func checkDocComments(t *testing.T, set string, files map[string][]byte) int {
	t.Helper()
	fset := token.NewFileSet()
	var parsed []*ast.File
	for _, n := range sortedNames(files) {
		f, err := parser.ParseFile(fset, n, files[n], parser.ParseComments)
		if err != nil {
			t.Fatalf("%s: %v", set, err)
		}
		parsed = append(parsed, f)
	}
	pkg, err := doc.NewFromFiles(fset, parsed, "example.test/"+parsed[0].Name.Name, doc.AllDecls|doc.PreserveAST)
	if err != nil {
		t.Fatalf("%s: %v", set, err)
	}
	lookup := pkg.Parser().LookupSym
	links := 0
	for _, f := range parsed {
		for _, cg := range f.Comments {
			text := cg.Text()
			pos := fset.Position(cg.Pos())
			if m := linkLeftRE.FindString(text); m != "" {
				t.Errorf("%s: %s: comment still has %q:\n%s", set, pos, m, text)
			}
			for _, m := range docLinkRE.FindAllStringSubmatchIndex(text, -1) {
				if m[1] < len(text) && (text[m[1]] == '(' || text[m[1]] == ':') {
					continue // a Markdown link or a link definition, not a doc link
				}
				name, recv := text[m[2]:m[3]], ""
				if m[4] >= 0 {
					recv, name = name, text[m[4]:m[5]]
				}
				links++
				if !lookup(recv, name) {
					t.Errorf("%s: %s: doc link %s names no symbol of the package", set, pos, text[m[0]:m[1]])
				}
			}
		}
	}
	return links
}
