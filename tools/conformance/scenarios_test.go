package main

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestScenarioCounts(t *testing.T) {
	if got := len(requiredScenarios); got != 37 {
		t.Errorf("%d required scenarios, want 37", got)
	}
	if got := len(notScoredScenarios); got != 13 {
		t.Errorf("%d not-scored scenarios, want 13", got)
	}
	valid := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	seen := map[string]bool{}
	for _, n := range append(append([]string{}, requiredScenarios...), notScoredScenarios...) {
		if seen[n] {
			t.Errorf("duplicate scenario %q", n)
		}
		seen[n] = true
		if !valid.MatchString(n) {
			t.Errorf("odd scenario name %q", n)
		}
	}
}

// TestScenarioListsMatchSuite compares the lists with the suite's own
// `conformance list --requirements 2026-07-28`. It needs npm (or
// CONFORMANCE_CMD) and runs only with CONFORMANCE_VERIFY_LIST=1.
func TestScenarioListsMatchSuite(t *testing.T) {
	if os.Getenv("CONFORMANCE_VERIFY_LIST") != "1" {
		t.Skip("set CONFORMANCE_VERIFY_LIST=1 to ask the installed suite")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := suiteCommand(ctx, "list", "--requirements", requirementRevision)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %v", cmd.Args, err)
	}
	required, notScored := parseList(string(out))
	if !slices.Equal(required, requiredScenarios) {
		t.Errorf("suite's required server scenarios:\n%s", strings.Join(required, "\n"))
	}
	if !slices.Equal(notScored, notScoredScenarios) {
		t.Errorf("suite's not-scored server scenarios:\n%s", strings.Join(notScored, "\n"))
	}
}

// parseList reads the server scenarios from `conformance list --requirements`.
func parseList(out string) (required, notScored []string) {
	section := ""
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "Server scenarios"):
			section = "server"
		case strings.HasPrefix(line, "Client scenarios"):
			section = "client"
		case strings.HasPrefix(line, "Run and reported, but never scored"):
			section = "notscored"
		case section == "server" && strings.HasPrefix(line, "  - "):
			required = append(required, strings.TrimPrefix(line, "  - "))
		case section == "notscored" && strings.HasSuffix(line, " [server]"):
			name := strings.TrimSpace(strings.TrimSuffix(line, " [server]"))
			notScored = append(notScored, strings.TrimPrefix(name, "- "))
		}
	}
	return required, notScored
}

func TestParseList(t *testing.T) {
	out := `Required for 2026-07-28 (3 scenarios, frozen; run at the 2026-07-28 wire):

Server scenarios (test against a server):
  - server-stateless
  - caching

Client scenarios (test against a client):
  - tools_call

Run and reported, but never scored:
  extension (2):
    - auth/dpop [client]
    - tasks-lifecycle [server]
  pending (1):
    - http-header-validation [server]
`
	req, ns := parseList(out)
	if !slices.Equal(req, []string{"server-stateless", "caching"}) || !slices.Equal(ns, []string{"tasks-lifecycle", "http-header-validation"}) {
		t.Errorf("got %q, %q", req, ns)
	}
}
