package main

// The suite version that the lists below belong to, and the two
// requirement revisions run against the one server. Change them together
// with the lists.
const (
	suitePackage     = "@modelcontextprotocol/conformance@0.2.0-alpha.12"
	modernRevision   = "2026-07-28"
	legacyRevision   = "2025-11-25"
	defaultRevisions = modernRevision + "," + legacyRevision
)

// requirementSet is one requirement revision of the suite: the server
// scenarios it scores, those it runs and reports without scoring, and how
// this tool scores the latter.
type requirementSet struct {
	Revision  string
	Required  []string
	NotScored []string
	// StrictNotScored makes a failed check of a not-scored scenario fail
	// the set even without -all (docs/dual-era.md §10.8: none of the three
	// not-scored 2025-11-25 scenarios is impossible for this design).
	StrictNotScored bool
}

// requirementSets returns the sets this tool knows, in run order.
func requirementSets() []requirementSet {
	return []requirementSet{
		{Revision: modernRevision, Required: requiredScenarios, NotScored: notScoredScenarios},
		{Revision: legacyRevision, Required: legacyRequiredScenarios, NotScored: legacyNotScoredScenarios, StrictNotScored: true},
	}
}

// lookupSet returns the set of revision.
func lookupSet(revision string) (requirementSet, bool) {
	for _, s := range requirementSets() {
		if s.Revision == revision {
			return s, true
		}
	}
	return requirementSet{}, false
}

// requiredScenarios are the server scenarios that the 2026-07-28 requirement
// set scores (they decide the suite's exit code), in the suite's run order.
//
// Obtained from the installed suite (0.2.0-alpha.12, run on node 22) with
//
//	npx -y -p node@22 -p @modelcontextprotocol/conformance@0.2.0-alpha.12 -- \
//	  conformance list --requirements 2026-07-28
//
// section "Server scenarios (test against a server)". The same names appear,
// in the same order, in the suite's "=== Running scenario: NAME ===" lines of
// a `conformance server --requirements 2026-07-28` run. Re-check with
//
//	CONFORMANCE_VERIFY_LIST=1 go test -run TestScenarioListsMatchSuite ./tools/conformance/
var requiredScenarios = []string{
	"server-stateless",
	"completion-complete",
	"tools-list",
	"tools-call-simple-text",
	"tools-call-image",
	"tools-call-audio",
	"tools-call-embedded-resource",
	"tools-call-mixed-content",
	"tools-call-error",
	"tools-call-with-progress",
	"server-sse-multiple-streams",
	"resources-list",
	"resources-read-text",
	"resources-read-binary",
	"resources-templates-read",
	"sep-2164-resource-not-found",
	"prompts-list",
	"prompts-get-simple",
	"prompts-get-with-args",
	"prompts-get-embedded-resource",
	"prompts-get-with-image",
	"dns-rebinding-protection",
	"caching",
	"input-required-result-basic-elicitation",
	"input-required-result-basic-sampling",
	"input-required-result-basic-list-roots",
	"input-required-result-request-state",
	"input-required-result-multiple-input-requests",
	"input-required-result-multi-round",
	"input-required-result-missing-input-response",
	"input-required-result-non-tool-request",
	"input-required-result-result-type",
	"input-required-result-unsupported-methods",
	"input-required-result-tampered-state",
	"input-required-result-capability-check",
	"input-required-result-ignore-extra-params",
	"input-required-result-validate-input",
}

// notScoredScenarios are the server scenarios that the same run executes and
// reports but never scores: the `[server]` entries of the list output's
// "Run and reported, but never scored" section (client-side entries
// omitted), with the suite's reason.
var notScoredScenarios = []string{
	// extension (io.modelcontextprotocol/tasks, SEP-2663)
	"tasks-lifecycle",
	"tasks-capability-negotiation",
	"tasks-wire-fields",
	"tasks-request-state-removal",
	"tasks-mrtr-input",
	"tasks-request-headers",
	"tasks-dispatch-and-envelope",
	"tasks-status-notifications",
	"tasks-required-task-error",
	"tasks-mrtr-composition",
	// pending
	"json-schema-2020-12",
	"http-header-validation",
	"http-custom-header-server-validation",
}

// legacyRequiredScenarios are the server scenarios that the 2025-11-25
// requirement set scores, in the suite's run order: the 2025-11-25 wire (an
// initialize handshake, Mcp-Session-Id, a GET stream, server-to-client
// requests on SSE; docs/dual-era.md Appendix A says what each sends and
// checks).
//
// Obtained from the installed suite (0.2.0-alpha.12, run on node 22) with
//
//	npx -y -p node@22 -p @modelcontextprotocol/conformance@0.2.0-alpha.12 -- \
//	  conformance list --requirements 2025-11-25
//
// section "Server scenarios (test against a server)". Re-check with
// CONFORMANCE_VERIFY_LIST=1 as above.
var legacyRequiredScenarios = []string{
	"server-initialize",
	"logging-set-level",
	"ping",
	"completion-complete",
	"tools-list",
	"tools-call-simple-text",
	"tools-call-image",
	"tools-call-audio",
	"tools-call-embedded-resource",
	"tools-call-mixed-content",
	"tools-call-with-logging",
	"tools-call-error",
	"tools-call-with-progress",
	"tools-call-sampling",
	"tools-call-elicitation",
	"elicitation-sep1034-defaults",
	"server-sse-multiple-streams",
	"elicitation-sep1330-enums",
	"resources-list",
	"resources-read-text",
	"resources-read-binary",
	"resources-templates-read",
	"resources-subscribe",
	"resources-unsubscribe",
	"prompts-list",
	"prompts-get-simple",
	"prompts-get-with-args",
	"prompts-get-embedded-resource",
	"prompts-get-with-image",
	"dns-rebinding-protection",
}

// legacyNotScoredScenarios are the `[server]` entries of the same list's
// "Run and reported, but never scored" section. This tool fails the
// 2025-11-25 set on any of their failed checks (StrictNotScored).
var legacyNotScoredScenarios = []string{
	// added-after-release
	"server-session-lifecycle",
	// pending
	"json-schema-2020-12",
	"server-sse-polling",
}
