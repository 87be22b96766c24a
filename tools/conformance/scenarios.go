package main

// The suite version and requirement revision that the lists below belong to.
// Change them together with the lists.
const (
	suitePackage        = "@modelcontextprotocol/conformance@0.2.0-alpha.12"
	requirementRevision = "2026-07-28"
)

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
