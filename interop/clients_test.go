package interop

// The clients the interop tests run, in one list: TestNodeClients
// (clients_node_test.go) runs the Node clients' scripts from it, one per
// transport and revision of each run; TestLegacyTS, TestInterop and
// TestLegacyMCPGo take their versions from the same constants and
// variables the entries below name. TestWorksWithTable renders the list as
// the README's "Works with" table and fails when README.md differs;
//
//	go generate ./...   (or: go test -run TestWorksWithTable -update)
//
// rewrites it. What a row claims is checked: a Node client's run passes
// only when its script reported a passing check for every feature of the
// row (less the run's Lacks), and the Go-driven clients' features name
// the steps of their tests that cover them (Evidence).
//
// Deviations found, and the decision for each (also in the Notes column):
//   - @ai-sdk/mcp: tools() forces additionalProperties false on every
//     tool's input schema, also where the server's schema leaves it open
//     (JSON Schema's default is true); properties declared only inside
//     allOf/$ref would then be closed out for a validating provider.
//     Decision: a client choice mcpwire cannot change; checked as
//     deviation/closed_input_schema so a change shows; a server for the
//     AI SDK declares every argument in the top-level properties (the
//     2020-12 fixture does, and passes through intact).
//   - @ai-sdk/mcp: server notifications (logging, progress) are not
//     surfaced (onUncaughtError "Unsupported message type"); it sends no
//     progressToken and no log level. Decision: not a schema violation
//     (both are opt-in); checked that mcpwire sends none unasked in
//     2026-07-28 (tools/unrequested_notifications); logging and progress
//     are not claimed.
//   - @mastra/mcp: in a 2025-11-25 session it asks for logs only with the
//     2026-07-28 _meta key io.modelcontextprotocol/logLevel and never sends
//     logging/setLevel, so a legacy server following the revision sends it
//     no logs. Decision: mcpwire keeps serving each session by its own
//     revision (the key means nothing in 2025-11-25); logging is claimed
//     for 2026-07-28 only, and deviation/legacy_log_level checks the
//     behaviour.
//   - mcp-remote --protocol auto: a 2026-07-28 error is relayed to the
//     2025-11-25 client as is (resource not found: -32602 where
//     2025-11-25 names -32002). Decision: the bridge's to translate, the
//     server answers the revision it is asked in; checked as
//     deviation/modern_error_code_relayed.
//   - mcp-remote --protocol legacy: before relaying the client's
//     initialize it opens a session of its own (clientInfo
//     mcp-remote-fallback-test) and never closes it. Decision: harmless
//     for mcpwire (the idle session expires); noted only.

//go:generate go test -run TestWorksWithTable -update .

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var updateREADME = flag.Bool("update", false, "rewrite README.md's works-with section from the clients list")

// Transports of a run.
const (
	trHTTP   = "http"  // Streamable HTTP to examples/everything
	trStdio  = "stdio" // the client starts examples/everything
	trBridge = "stdio-to-http"
)

// The revisions.
const (
	rev20260728 = "2026-07-28"
	rev20251125 = "2025-11-25"
	rev20250618 = "2025-06-18"
	rev20250326 = "2025-03-26"
	rev20241105 = "2024-11-05"
)

// A feature is the first element of a Node script's check names
// ("tools/call_text") and a phrase of the README's Tested column.
var features = []struct{ key, words string }{
	{"version", "negotiated revision"},
	{"tools", "tools (list; text, `isError` and image results)"},
	{"structured", "`structuredContent`"},
	{"unknown_tool", "unknown tool"},
	{"schema", "JSON Schema 2020-12 input schema into the client's tool type"},
	{"agent", "a `generateText` loop (mock model) calling an MCP tool"},
	{"headers", "`x-mcp-header` parameters as `Mcp-Param-*` headers"},
	{"resources", "resources (list, read, templates)"},
	{"prompts", "prompts"},
	{"completion", "completion"},
	{"elicitation", "elicitation"},
	{"sampling", "sampling"},
	{"roots", "roots"},
	{"mrtr", "multi round-trip requests"},
	{"logging", "logging"},
	{"progress", "progress"},
	{"cancellation", "cancellation"},
	{"list_changed", "list-changed notifications"},
	{"subscriptions", "resource subscriptions"},
	{"resumption", "SSE polling and resumption"},
	{"sessions", "session end (DELETE, 404)"},
}

// deviationKey prefixes the checks of a documented deviation: reported,
// never a feature.
const deviationKey = "deviation"

// interopClient is one client the interop tests run, and its README row.
type interopClient struct {
	Key     string // the subtest of TestNodeClients; a short name otherwise
	Name    string // the client, as the README names it
	Package string // its npm package or Go module
	Version string // pinned exactly
	With    []pin  // npm packages pinned beside it that the script uses

	Dir    string // Node clients: the folder (of interop/) with package.json and package-lock.json
	Script string // the script in Dir that TestNodeClients runs; "" when Test drives the client itself
	Test   string // the Go test that runs the client

	Runs     []clientRun
	Features []string // feature keys every run covers, less its Lacks
	// Evidence (clients that Test drives itself): for each feature, the
	// steps of Test that cover it.
	Evidence map[string][]string
	Notes    string // the README's notes: deviations and limits
}

type pin struct{ Package, Version string }

// clientRun is one transport in one revision.
type clientRun struct {
	Transport string
	Era       string   // the revision the run must negotiate
	Lacks     []string // features of the client this run cannot cover
}

// runs is one run per era on each transport.
func runs(eras []string, transports ...string) []clientRun {
	var out []clientRun
	for _, tr := range transports {
		for _, e := range eras {
			out = append(out, clientRun{Transport: tr, Era: e})
		}
	}
	return out
}

// lacking marks feature as not covered by the runs that match.
func lacking(rs []clientRun, feature string, match func(clientRun) bool) []clientRun {
	for i := range rs {
		if match(rs[i]) {
			rs[i].Lacks = append(rs[i].Lacks, feature)
		}
	}
	return rs
}

// The pinned npm versions.
const (
	aiSDKMCPVersion  = "2.0.99"
	aiSDKVersion     = "7.0.172" // the `ai` release built with @ai-sdk/mcp 2.0.99: the same @ai-sdk/provider 4.0.38 and provider-utils 5.0.81
	mcpRemoteVersion = "0.15.1"
	mastraMCPVersion = "2.0.0"
	mastraCore       = "1.68.0" // the @mastra/core @mastra/mcp 2.0.0 was built and tested with (its devDependency; peer >=1.68.0-0 <2.0.0-0)
	zodVersion       = "4.6.7"  // @ai-sdk/mcp 2.0.99's own (devDependency; peer ^3.25.76 || ^4.1.8), also within @mastra/mcp's
)

var clients = []interopClient{
	{
		Key: "gosdk", Name: "Go MCP SDK", Package: "github.com/modelcontextprotocol/go-sdk", Version: "v1.8.0",
		Test: "TestInterop",
		Runs: runs([]string{wantProtocol}, trHTTP, trStdio),
		Features: []string{"version", "tools", "headers", "resources", "prompts", "completion", "progress",
			"mrtr", "elicitation", "sampling", "roots"},
		Evidence: map[string][]string{
			"version":     {"connect"},
			"tools":       {"list_tools", "call_simple_text", "call_image_content", "call_error_handling"},
			"headers":     {"x_mcp_header"},
			"resources":   {"list_resources", "list_resource_templates", "read_static_text", "read_template"},
			"prompts":     {"list_prompts", "get_prompt_with_arguments"},
			"completion":  {"complete"},
			"progress":    {"call_with_progress"},
			"mrtr":        {"mrtr_request_state", "mrtr_multiple_inputs", "mrtr_multi_round", "mrtr_prompt", "mrtr_manual_retry"},
			"elicitation": {"mrtr_elicitation"},
			"sampling":    {"mrtr_sampling"},
			"roots":       {"mrtr_list_roots"},
		},
		Notes: "`server/discover`, then stateless 2026-07-28 requests",
	},
	{
		Key: "mcpgo", Name: "mcp-go", Package: "github.com/mark3labs/mcp-go", Version: "v1.2.1",
		Test: "TestLegacyMCPGo",
		Runs: append(runs(httpVersions, trHTTP), runs(stdioVersions, trStdio)...),
		Features: []string{"version", "tools", "structured", "resources", "prompts", "completion", "logging", "progress", "cancellation",
			"list_changed", "subscriptions", "elicitation", "sampling", "roots", "resumption", "sessions"},
		Evidence: map[string][]string{
			"version":       {"initialize"},
			"tools":         {"tools_list", "call_simple_text", "call_image", "call_error_handling"},
			"structured":    {"structured_output"},
			"resources":     {"resources_list", "templates_list", "read_text", "read_blob", "read_template"},
			"prompts":       {"prompts_list", "prompt_with_arguments"},
			"completion":    {"complete"},
			"logging":       {"logging", "tool_with_logging"},
			"progress":      {"progress"},
			"cancellation":  {"cancellation"},
			"list_changed":  {"list_changed"},
			"subscriptions": {"watched_resource", "resource_updated"},
			"sessions":      {"session_end"},
			"elicitation":   {"bridge_elicitation", "test_elicitation"},
			"sampling":      {"bridge_sampling", "test_sampling"},
			"roots":         {"bridge_roots"},
			"resumption":    {"sse_polling"},
		},
		Notes: "pinned with `WithProtocolVersion`; 2024-11-05 over stdio only (mcp-go speaks it over HTTP+SSE, which mcpwire does not serve)",
	},
	{
		Key: "tssdk", Name: "TypeScript MCP SDK", Package: "@modelcontextprotocol/sdk", Version: tsSDKVersion,
		Dir: "ts", Test: "TestLegacyTS",
		Runs: runs([]string{rev20251125}, trHTTP, trStdio),
		Features: []string{"version", "tools", "structured", "resources", "prompts", "completion", "logging", "progress", "cancellation",
			"list_changed", "subscriptions", "elicitation", "sampling", "roots", "resumption", "sessions"},
		Evidence: map[string][]string{
			"version":       {"initialize"},
			"tools":         {"tools_list", "call_simple_text", "call_image", "call_error_handling"},
			"structured":    {"structured_output"},
			"resources":     {"resources_list", "templates_list", "read_text", "read_blob", "read_template", "read_missing"},
			"prompts":       {"prompts_list", "prompt_with_arguments"},
			"completion":    {"complete"},
			"logging":       {"logging", "tool_with_logging"},
			"progress":      {"progress"},
			"cancellation":  {"cancellation"},
			"list_changed":  {"list_changed"},
			"subscriptions": {"subscribe", "resource_updated"},
			"elicitation":   {"bridge_elicitation", "test_elicitation"},
			"sampling":      {"bridge_sampling", "test_sampling"},
			"roots":         {"bridge_roots"},
			"resumption":    {"sse_polling"},
			"sessions":      {"session_end"},
		},
		Notes: "1.x always asks for its latest revision, 2025-11-25",
	},
	{
		Key: "aisdk", Name: "Vercel AI SDK MCP client", Package: "@ai-sdk/mcp", Version: aiSDKMCPVersion,
		With: []pin{{"ai", aiSDKVersion}, {"zod", zodVersion}},
		Dir:  "aisdk", Script: "aisdk.mjs", Test: "TestNodeClients/aisdk",
		Runs: lacking(runs([]string{rev20260728, rev20251125}, trHTTP, trStdio), "headers",
			func(r clientRun) bool { return r.Transport != trHTTP || r.Era != rev20260728 }),
		Features: []string{"version", "tools", "structured", "unknown_tool", "schema", "agent", "headers", "resources", "prompts", "completion", "elicitation"},
		Notes: "its only legacy revision is 2025-11-25; logging and progress are not surfaced (checked: none sent unasked); " +
			"forces `additionalProperties: false` on every input schema",
	},
	{
		Key: "mcpremote", Name: "mcp-remote", Package: "mcp-remote", Version: mcpRemoteVersion,
		With: []pin{{"@modelcontextprotocol/sdk", tsSDKVersion}},
		Dir:  "ts", Script: "mcpremote.mjs", Test: "TestNodeClients/mcpremote",
		Runs: lacking(runs([]string{rev20260728, rev20251125, rev20250618, rev20250326, rev20241105}, trBridge), "elicitation",
			func(r clientRun) bool { return r.Era < rev20250618 }),
		Features: []string{"version", "tools", "structured", "unknown_tool", "resources", "prompts", "completion", "logging", "progress",
			"list_changed", "elicitation", "sampling", "roots"},
		Notes: "the stdio-to-HTTP bridge of desktop hosts, driven by the TypeScript SDK client on its stdio; `--transport http-only`; `--protocol legacy` passes each revision's `initialize` through, " +
			"`--protocol auto` speaks 2026-07-28 upstream to a 2025-11-25 client; elicitation from 2025-06-18; " +
			"relays 2026-07-28 error codes untranslated; leaves its probe session open",
	},
	{
		Key: "mastra", Name: "Mastra MCP client", Package: "@mastra/mcp", Version: mastraMCPVersion,
		With: []pin{{"@mastra/core", mastraCore}, {"zod", zodVersion}},
		Dir:  "mastra", Script: "mastra.mjs", Test: "TestNodeClients/mastra",
		Runs: lacking(runs([]string{rev20260728, rev20251125}, trHTTP, trStdio), "logging",
			func(r clientRun) bool { return r.Era != rev20260728 }),
		Features: []string{"version", "tools", "structured", "unknown_tool", "resources", "prompts", "logging", "progress", "elicitation"},
		Notes: "on the TypeScript SDK 2.0.0; its only legacy revision is 2025-11-25; no completion; " +
			"logging in 2026-07-28 only (in a 2025-11-25 session it sends the 2026-07-28 log-level `_meta` key, never `logging/setLevel`)",
	},
}

// npmPins is what dir's package.json must pin: every package of the
// clients in dir.
func npmPins(dir string) map[string]string {
	pins := map[string]string{}
	for _, c := range clients {
		if c.Dir != dir {
			continue
		}
		pins[c.Package] = c.Version
		for _, p := range c.With {
			pins[p.Package] = p.Version
		}
	}
	return pins
}

// npmDirs are the folders of the Node clients.
func npmDirs() []string {
	var dirs []string
	for _, c := range clients {
		if c.Dir != "" && !slices.Contains(dirs, c.Dir) {
			dirs = append(dirs, c.Dir)
		}
	}
	return dirs
}

const (
	worksWithStart = "<!-- works-with:start -->"
	worksWithEnd   = "<!-- works-with:end -->"
)

// TestWorksWithTable checks the clients list against the tests and the
// pinned versions, and README.md's works-with section against the list.
func TestWorksWithTable(t *testing.T) {
	known := map[string]bool{}
	for _, f := range features {
		known[f.key] = true
	}
	goMod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	stepNames := map[string][]string{}
	for _, s := range steps {
		stepNames["TestInterop"] = append(stepNames["TestInterop"], s.name)
	}
	for _, s := range goSteps {
		stepNames["TestLegacyMCPGo"] = append(stepNames["TestLegacyMCPGo"], s.name)
	}
	// TestLegacyMCPGo's subtests beside its steps.
	stepNames["TestLegacyMCPGo"] = append(stepNames["TestLegacyMCPGo"], "session_end", "resource_updated")
	for _, c := range clients {
		t.Run(c.Key, func(t *testing.T) {
			for _, f := range c.Features {
				if !known[f] {
					t.Errorf("feature %q is not in features", f)
				}
			}
			for _, r := range c.Runs {
				for _, f := range r.Lacks {
					if !slices.Contains(c.Features, f) {
						t.Errorf("run %s/%s lacks %q, which is not a feature of the client", r.Transport, r.Era, f)
					}
				}
			}
			switch {
			case c.Dir == "": // a Go module: the version go.mod requires
				if !bytes.Contains(goMod, []byte("\t"+c.Package+" "+c.Version+"\n")) {
					t.Errorf("go.mod does not require %s %s", c.Package, c.Version)
				}
			default:
				checkPackageJSON(t, c.Dir)
			}
			if c.Script != "" {
				if _, err := os.Stat(filepath.Join(c.Dir, c.Script)); err != nil {
					t.Error(err)
				}
				if c.Evidence != nil {
					t.Error("a scripted client proves its features by its checks, not by Evidence")
				}
				return
			}
			// A client its own test drives: each feature names the steps
			// of that test which cover it.
			names := stepNames[c.Test]
			if c.Test == "TestLegacyTS" {
				names = scriptChecks(t, filepath.Join(c.Dir, "legacy.mjs"))
			}
			for _, f := range c.Features {
				ev := c.Evidence[f]
				if len(ev) == 0 {
					t.Errorf("feature %q has no evidence in %s", f, c.Test)
				}
				for _, name := range ev {
					if !slices.Contains(names, name) {
						t.Errorf("feature %q: %s has no step %q", f, c.Test, name)
					}
				}
			}
		})
	}

	want := renderWorksWith()
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	start := bytes.Index(readme, []byte(worksWithStart))
	end := bytes.Index(readme, []byte(worksWithEnd))
	if start < 0 || end < start {
		t.Fatalf("README.md has no %s … %s section", worksWithStart, worksWithEnd)
	}
	got := string(readme[start+len(worksWithStart) : end])
	if got == want {
		return
	}
	if *updateREADME {
		out := slices.Concat(readme[:start+len(worksWithStart)], []byte(want), readme[end:])
		if err := os.WriteFile(filepath.Join("..", "README.md"), out, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote README.md's works-with section")
		return
	}
	t.Errorf("README.md's works-with section is not the clients list (go generate in interop/ rewrites it)\ngot:\n%s\nwant:\n%s", got, want)
}

// checkPackageJSON checks that dir's package.json and package-lock.json pin
// exactly the packages of the clients in dir.
func checkPackageJSON(t *testing.T, dir string) {
	t.Helper()
	want := npmPins(dir)
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	readJSON(t, filepath.Join(dir, "package.json"), &pkg)
	if !mapsEqual(pkg.Dependencies, want) {
		t.Errorf("%s/package.json dependencies %v, want %v", dir, pkg.Dependencies, want)
	}
	var lock struct {
		Packages map[string]struct {
			Version      string            `json:"version"`
			Dependencies map[string]string `json:"dependencies"`
		} `json:"packages"`
	}
	readJSON(t, filepath.Join(dir, "package-lock.json"), &lock)
	if root := lock.Packages[""].Dependencies; !mapsEqual(root, want) {
		t.Errorf("%s/package-lock.json root dependencies %v, want %v (npm install)", dir, root, want)
	}
	for name, v := range want {
		if got := lock.Packages["node_modules/"+name].Version; got != v {
			t.Errorf("%s/package-lock.json locks %s %s, want %s", dir, name, got, v)
		}
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// scriptChecks lists the check names of a script: each run('name', …).
func scriptChecks(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for rest := string(b); ; {
		_, after, ok := strings.Cut(rest, "run('")
		if !ok {
			return names
		}
		name, tail, _ := strings.Cut(after, "'")
		names = append(names, name)
		rest = tail
	}
}

// renderWorksWith is the README's section between the markers.
func renderWorksWith() string {
	var b strings.Builder
	b.WriteString("\n| Client | Version | Transports | Revisions | Tested | Notes | Test |\n|---|---|---|---|---|---|---|\n")
	for _, c := range clients {
		version := "`" + c.Version + "`"
		for _, p := range c.With {
			version += fmt.Sprintf(" + `%s` `%s`", p.Package, p.Version)
		}
		var tested []string
		for _, f := range features {
			if slices.Contains(c.Features, f.key) {
				tested = append(tested, f.words)
			}
		}
		name := c.Name + " (`" + c.Package + "`)"
		if c.Name == c.Package {
			name = "`" + c.Package + "`"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | `%s` |\n",
			name, version, transportsOf(c.Runs), revisionsOf(c.Runs), strings.Join(tested, ", "), c.Notes, c.Test)
	}
	return b.String()
}

var transportWords = map[string]string{trHTTP: "Streamable HTTP", trStdio: "stdio", trBridge: "stdio → Streamable HTTP"}

func transportsOf(rs []clientRun) string {
	var out []string
	for _, r := range rs {
		if w := transportWords[r.Transport]; !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return strings.Join(out, ", ")
}

// revisionsOf lists the revisions newest first; where the transports
// differ, each group of revisions names its transports.
func revisionsOf(rs []clientRun) string {
	by := map[string][]string{} // era → transports
	var eras []string
	for _, r := range rs {
		if !slices.Contains(eras, r.Era) {
			eras = append(eras, r.Era)
		}
		if w := transportWords[r.Transport]; !slices.Contains(by[r.Era], w) {
			by[r.Era] = append(by[r.Era], w)
		}
	}
	slices.Sort(eras)
	slices.Reverse(eras)
	var groups []string
	var group []string
	same := true
	for i, e := range eras {
		if i > 0 && !slices.Equal(by[e], by[eras[0]]) {
			same = false
		}
		group = append(group, e)
		if i == len(eras)-1 || !slices.Equal(by[e], by[eras[i+1]]) {
			groups = append(groups, strings.Join(group, ", ")+" ("+strings.Join(by[e], ", ")+")")
			group = nil
		}
	}
	if same {
		return strings.Join(eras, ", ")
	}
	return strings.Join(groups, "; ")
}
