package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var fixtures = filepath.Join("..", "..", "testdata", "conformance")

// writeResults lays out a full result folder as the suite writes it: one
// server-<scenario>-<timestamp>/checks.json per required and not-scored
// scenario, with the body testdata/conformance/checks/<kind>.json. kinds maps
// a scenario to its kind (default "ok"); the kind "missing" writes no folder,
// "crash" an empty one.
func writeResults(t *testing.T, kinds map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	all := append(append([]string{}, requiredScenarios...), notScoredScenarios...)
	for name := range kinds {
		found := false
		for _, n := range all {
			found = found || n == name
		}
		if !found {
			writeScenario(t, dir, name, "2026-11-30T01-48-29-203Z", kinds[name])
		}
	}
	for _, name := range all {
		kind := kinds[name]
		if kind == "" {
			kind = "ok"
		}
		writeScenario(t, dir, name, "2026-11-30T01-48-29-203Z", kind)
	}
	return dir
}

func writeScenario(t *testing.T, dir, name, ts, kind string) {
	t.Helper()
	if kind == "missing" {
		return
	}
	sub := filepath.Join(dir, "server-"+name+"-"+ts)
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if kind == "crash" {
		return
	}
	data, err := os.ReadFile(filepath.Join(fixtures, "checks", kind+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "checks.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func score(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	code := realMain(append([]string{"score"}, args...), &out, &out)
	t.Logf("score %s -> %d\n%s", strings.Join(args, " "), code, out.String())
	return code, out.String()
}

// row returns the table row of scenario name.
func row(t *testing.T, out, name string) string {
	t.Helper()
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` .*$`)
	m := re.FindString(out)
	if m == "" {
		t.Fatalf("no row for %s", name)
	}
	return m
}

func lastLine(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	return lines[len(lines)-1]
}

// wantOutput checks that out holds each of wants and, when last is not
// empty, that its last line is last.
func wantOutput(t *testing.T, out, last string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if last == "" {
		return
	}
	if got := lastLine(out); got != last {
		t.Errorf("last line %q, want %q", got, last)
	}
}

// wantRowSuffix checks that the table row of scenario name ends with suffix.
func wantRowSuffix(t *testing.T, out, name, suffix string) {
	t.Helper()
	if r := row(t, out, name); !strings.HasSuffix(r, suffix) {
		t.Errorf("row %q, want the suffix %q", r, suffix)
	}
}

// wantExit stops the test unless code is want.
func wantExit(t *testing.T, code, want int) {
	t.Helper()
	if code != want {
		t.Fatalf("exit %d, want %d", code, want)
	}
}

// wantFailure stops the test unless code is not zero.
func wantFailure(t *testing.T, code int) {
	t.Helper()
	if code == 0 {
		t.Fatal("exit 0, want non-zero")
	}
}

func TestScoreAllOK(t *testing.T) {
	code, out := score(t, writeResults(t, nil))
	wantExit(t, code, 0)
	wantOutput(t, out, "required: 74 passed, 0 failed",
		"required scenarios ok: 37/37",
		"not scored (informational): 26 passed, 0 failed; scenarios ok: 13/13",
		"verdict: PASS",
	)
	wantRowSuffix(t, out, "tools-call-image", "required       2     0     0     0     0  ok")
}

func TestScoreRequiredFailure(t *testing.T) {
	code, out := score(t, writeResults(t, map[string]string{"tools-call-image": "failure"}))
	wantFailure(t, code)
	wantRowSuffix(t, out, "tools-call-image", "FAIL")
	wantOutput(t, out, "required: 73 passed, 1 failed",
		"tools-call-image / tools-list: Failed: HTTP 501",
		"verdict: FAIL, 1 scenario(s) failed: tools-call-image",
		"required scenarios ok: 36/37",
	)
}

func TestScoreNotScoredFailure(t *testing.T) {
	dir := writeResults(t, map[string]string{"tasks-lifecycle": "failure", "json-schema-2020-12": "crash"})
	code, out := score(t, dir)
	if code != 0 {
		t.Fatalf("without -all: exit %d, want 0", code)
	}
	if !strings.Contains(out, "not scored (informational): 23 passed, 2 failed; scenarios ok: 11/13") {
		t.Error("not-scored summary wrong")
	}
	if strings.Contains(out, "Failed checks:") {
		t.Error("not-scored failures listed without -all")
	}

	code, out = score(t, "-all", dir)
	if code == 0 {
		t.Fatal("with -all: exit 0, want non-zero")
	}
	wantOutput(t, out, "all: 97 passed, 2 failed",
		"tasks-lifecycle (not scored) / tools-list: Failed",
		"json-schema-2020-12 (not scored): crashed: no checks.json",
		"verdict: FAIL, 2 scenario(s) failed: tasks-lifecycle, json-schema-2020-12",
		"required: 74 passed, 0 failed",
	)
}

func TestScoreMissingRequired(t *testing.T) {
	code, out := score(t, writeResults(t, map[string]string{"caching": "missing"}))
	wantFailure(t, code)
	if r := row(t, out, "caching"); !strings.Contains(r, "FAIL (missing: no result folder)") {
		t.Errorf("row %q", r)
	}
	if !strings.Contains(out, "caching: missing: no result folder (no server-caching-<timestamp> folder)") {
		t.Error("missing scenario not named under Failed checks")
	}
	if !strings.Contains(out, "required scenarios ok: 36/37") {
		t.Error("scenario count wrong")
	}
	wantOutput(t, out, "required: 72 passed, 1 failed")
}

func TestScoreNoResultsAtAll(t *testing.T) {
	code, out := score(t, t.TempDir())
	wantFailure(t, code)
	if !strings.Contains(out, "required scenarios ok: 0/37") {
		t.Error("scenario count wrong")
	}
	wantOutput(t, out, "required: 0 passed, 37 failed")
	// Not-scored scenarios that never ran do not fail even with -all.
	wantRowSuffix(t, out, "tasks-lifecycle", "not run")
}

func TestScoreNotScoredNotRunWithAll(t *testing.T) {
	kinds := map[string]string{}
	for _, n := range notScoredScenarios {
		kinds[n] = "missing"
	}
	if code, _ := score(t, "-all", writeResults(t, kinds)); code != 0 {
		t.Fatalf("exit %d, want 0", code)
	}
}

func TestScoreProblemChecksFiles(t *testing.T) {
	for kind, want := range map[string]string{
		"crash":          "FAIL (crashed: no checks.json)",
		"empty":          "FAIL (no checks in checks.json)",
		"truncated":      "FAIL (invalid checks.json: ",
		"unknown-status": "FAIL",
	} {
		t.Run(kind, func(t *testing.T) {
			code, out := score(t, writeResults(t, map[string]string{"prompts-list": kind}))
			wantFailure(t, code)
			if r := row(t, out, "prompts-list"); !strings.Contains(r, want) {
				t.Errorf("row %q lacks %q", r, want)
			}
			if !strings.Contains(out, "verdict: FAIL, 1 scenario(s) failed: prompts-list") {
				t.Error("scenario not named")
			}
		})
	}
}

func TestScoreUnknownStatusNamed(t *testing.T) {
	_, out := score(t, writeResults(t, map[string]string{"prompts-list": "unknown-status"}))
	if !strings.Contains(out, "prompts-list / future-check [status ERROR]: made-up status") {
		t.Error("unknown-status check not listed")
	}
}

func TestScoreWarningOnly(t *testing.T) {
	kinds := map[string]string{}
	for _, n := range requiredScenarios {
		kinds[n] = "warning"
	}
	kinds["server-sse-multiple-streams"] = "info-skipped"
	code, out := score(t, writeResults(t, kinds))
	wantExit(t, code, 0)
	wantRowSuffix(t, out, "input-required-result-validate-input", "required       0     0     1     0     0  ok")
	wantRowSuffix(t, out, "server-sse-multiple-streams", "required       1     0     0     1     1  ok")
	if !strings.Contains(out, "required scenarios ok: 37/37") {
		t.Error("scenario count wrong")
	}
}

func TestScoreLatestRunWins(t *testing.T) {
	dir := writeResults(t, nil)
	// An earlier failed run of tools-list; the later ok one decides.
	writeScenario(t, dir, "tools-list", "2026-11-30T01-40-02-118Z", "failure")
	code, out := score(t, dir)
	wantExit(t, code, 0)
	wantRowSuffix(t, out, "tools-list", "ok [latest of 2 runs]")
	// A later failed run decides the other way.
	writeScenario(t, dir, "tools-list", "2026-11-30T02-00-00-000Z", "failure")
	if code, _ := score(t, dir); code == 0 {
		t.Fatal("exit 0 with a later failed run")
	}
}

func TestScoreUnknownScenario(t *testing.T) {
	dir := writeResults(t, map[string]string{"some-new-scenario": "failure"})
	code, out := score(t, dir)
	if code != 0 {
		t.Fatalf("exit %d, want 0 (unknown scenarios are not scored)", code)
	}
	if r := row(t, out, "some-new-scenario"); !strings.Contains(r, "unknown") {
		t.Errorf("row %q", r)
	}
	if code, _ := score(t, "-all", dir); code == 0 {
		t.Fatal("with -all: exit 0")
	}
}

func TestScoreRequiredOnly(t *testing.T) {
	code, out := score(t, "-required-only", writeResults(t, map[string]string{"tasks-lifecycle": "failure"}))
	wantExit(t, code, 0)
	if strings.Contains(out, "tasks-lifecycle") || strings.Contains(out, "not scored") {
		t.Error("not-scored scenarios shown with -required-only")
	}
}

// TestScoreSample scores the hand-made folder in the suite's layout: the
// "server-server-stateless-..." name, two runs of tools-list (the later
// failed) and a stray server.log.
func TestScoreSample(t *testing.T) {
	code, out := score(t, filepath.Join(fixtures, "sample"))
	wantFailure(t, code)
	wantRowSuffix(t, out, "server-stateless", "required       1     0     1     0     1  ok")
	wantRowSuffix(t, out, "tools-list", "required       1     1     0     0     0  FAIL [latest of 2 runs]")
	wantRowSuffix(t, out, "tasks-status-notifications", "not scored     0     0     0     0     1  ok")
	if !strings.Contains(out, "required scenarios ok: 1/37") {
		t.Error("scenario count wrong")
	}
}

func TestScoreUsage(t *testing.T) {
	if code, _ := score(t); code != 2 {
		t.Errorf("no DIR: exit %d, want 2", code)
	}
	if code, _ := score(t, filepath.Join(t.TempDir(), "nope")); code != 2 {
		t.Errorf("missing DIR: exit %d, want 2", code)
	}
	var out bytes.Buffer
	if code := realMain([]string{"bogus"}, &out, &out); code != 2 {
		t.Errorf("unknown mode: exit %d, want 2", code)
	}
}

func TestResultDirRE(t *testing.T) {
	for name, want := range map[string]string{
		"server-server-stateless-2026-11-30T01-48-29-203Z":                  "server-stateless",
		"server-input-required-result-multi-round-2026-01-02T03-04-05-006Z": "input-required-result-multi-round",
		"server-sep-2164-resource-not-found-2026-11-30T01-48-29-532Z":       "sep-2164-resource-not-found",
		"client-tools_call-2026-11-30T01-48-29-203Z":                        "",
		"server-tools-list": "",
		"server.log":        "",
	} {
		got := ""
		if m := resultDirRE.FindStringSubmatch(name); m != nil {
			got = m[1]
		}
		if got != want {
			t.Errorf("%s: scenario %q, want %q", name, got, want)
		}
	}
}

// writeSetResults lays out the results of one run of set in dir, as
// writeResults does for 2026-07-28.
func writeSetResults(t *testing.T, dir string, set requirementSet, kinds map[string]string) {
	t.Helper()
	for _, name := range append(append([]string{}, set.Required...), set.NotScored...) {
		kind := kinds[name]
		if kind == "" {
			kind = "ok"
		}
		writeScenario(t, dir, name, "2026-12-01T16-52-11-402Z", kind)
	}
}

// writeLayered lays out a `conformance run` folder: DIR/<revision>/ per
// set, with kinds per revision; when kinds is not nil, only the revisions
// it names get a folder.
func writeLayered(t *testing.T, kinds map[string]map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for _, set := range requirementSets() {
		if _, ok := kinds[set.Revision]; !ok && kinds != nil {
			continue // not named in a non-nil kinds: no folder
		}
		writeSetResults(t, filepath.Join(dir, set.Revision), set, kinds[set.Revision])
	}
	return dir
}

// 2025-11-25 alone, from a folder of one suite run: its 30 required
// scenarios, and its three not-scored ones fail it without -all.
func TestScoreLegacySet(t *testing.T) {
	set, _ := lookupSet(legacyRevision)
	dir := t.TempDir()
	writeSetResults(t, dir, set, nil)
	code, out := score(t, "-requirements", legacyRevision, dir)
	wantExit(t, code, 0)
	wantOutput(t, out, "all: 66 passed, 0 failed",
		"(requirements 2025-11-25)",
		"required scenarios ok: 30/30",
		"not scored (scored: any failed check fails): 6 passed, 0 failed; scenarios ok: 3/3",
	)

	for _, name := range []string{"server-session-lifecycle", "json-schema-2020-12", "server-sse-polling"} {
		dir := t.TempDir()
		writeSetResults(t, dir, set, map[string]string{name: "failure"})
		code, out := score(t, "-requirements", legacyRevision, dir)
		if code != 1 {
			t.Errorf("%s failed: exit %d, want 1", name, code)
		}
		if !strings.Contains(out, name+" (not scored) / tools-list: Failed") {
			t.Errorf("%s: failed check not listed", name)
		}
	}
	// A not-scored scenario that did not run does not fail it (as -all).
	dir = t.TempDir()
	writeSetResults(t, dir, set, map[string]string{"server-sse-polling": "missing"})
	if code, _ := score(t, "-requirements", legacyRevision, dir); code != 0 {
		t.Errorf("not run: exit %d, want 0", code)
	}
	// An unknown scenario in the folder is reported, not scored.
	dir = t.TempDir()
	writeSetResults(t, dir, set, nil)
	writeScenario(t, dir, "some-new-scenario", "2026-12-01T16-52-11-402Z", "failure")
	if code, _ := score(t, "-requirements", legacyRevision, dir); code != 0 {
		t.Errorf("unknown scenario: exit %d, want 0", code)
	}
}

// The folder of `conformance run`: both sets scored from DIR/<revision>,
// each table, then both scores; a failure in one set fails the whole.
func TestScoreLayered(t *testing.T) {
	code, out := score(t, writeLayered(t, nil))
	wantExit(t, code, 0)
	wantOutput(t, out, "scored: 140 passed, 0 failed",
		"== requirements 2026-07-28 ==",
		"== requirements 2025-11-25 ==",
		"== scores ==",
		"2026-07-28: PASS; required scenarios ok 37/37, not scored ok 13/13; checks of required: 74 passed, 0 failed",
		"2025-11-25: PASS; required scenarios ok 30/30, not scored ok 3/3; checks of required and not scored: 66 passed, 0 failed",
	)

	code, out = score(t, writeLayered(t, map[string]map[string]string{
		modernRevision: nil,
		legacyRevision: {"tools-call-sampling": "failure", "elicitation-sep1330-enums": "crash"},
	}))
	wantExit(t, code, 1)
	wantOutput(t, out, "scored: 137 passed, 2 failed",
		"tools-call-sampling / tools-list: Failed: HTTP 501",
		"elicitation-sep1330-enums: crashed: no checks.json",
		"verdict: FAIL, 2 scenario(s) failed: tools-call-sampling, elicitation-sep1330-enums",
		"2026-07-28: PASS;",
		"2025-11-25: FAIL; required scenarios ok 28/30, not scored ok 3/3; checks of required and not scored: 63 passed, 2 failed",
		"verdict: FAIL (2025-11-25)",
	)

	// -all: the 2026-07-28 not-scored checks count too.
	code, out = score(t, "-all", writeLayered(t, map[string]map[string]string{modernRevision: {"tasks-lifecycle": "failure"}, legacyRevision: nil}))
	if code != 1 || !strings.Contains(out, "2026-07-28: FAIL; required scenarios ok 37/37, not scored ok 12/13; checks of all: 99 passed, 1 failed") {
		t.Errorf("-all: exit %d", code)
	}
	// Without -all that failure is informational.
	if code, _ := score(t, writeLayered(t, map[string]map[string]string{modernRevision: {"tasks-lifecycle": "failure"}, legacyRevision: nil})); code != 0 {
		t.Errorf("without -all: exit %d, want 0", code)
	}
}

// A run whose 2025-11-25 folder is missing (the suite never wrote it)
// fails that set as a run without results; -requirements narrows the
// layered folder to one set; an unknown revision is a usage error.
func TestScoreLayeredMissingSet(t *testing.T) {
	dir := writeLayered(t, map[string]map[string]string{modernRevision: nil})
	code, out := score(t, dir)
	wantExit(t, code, 1)
	if !strings.Contains(out, "2025-11-25: FAIL; required scenarios ok 0/30, not scored ok 0/0") {
		t.Error("missing set not reported")
	}
	if code, out := score(t, "-requirements", modernRevision, dir); code != 0 || strings.Contains(out, "2025-11-25") {
		t.Errorf("-requirements %s: exit %d", modernRevision, code)
	}
	if code, _ := score(t, "-requirements", "2025-03-26", dir); code != 2 {
		t.Errorf("unknown revision: exit %d, want 2", code)
	}
	if code, _ := score(t, "-requirements", defaultRevisions, writeResults(t, nil)); code != 2 {
		t.Errorf("two sets from a flat folder: exit %d, want 2", code)
	}
}
