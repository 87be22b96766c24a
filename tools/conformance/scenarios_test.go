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
	want := map[string][2]int{modernRevision: {37, 13}, legacyRevision: {30, 3}}
	sets := requirementSets()
	if len(sets) != len(want) {
		t.Fatalf("%d requirement sets, want %d", len(sets), len(want))
	}
	valid := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	for _, set := range sets {
		w := want[set.Revision]
		if got := len(set.Required); got != w[0] {
			t.Errorf("%s: %d required scenarios, want %d", set.Revision, got, w[0])
		}
		if got := len(set.NotScored); got != w[1] {
			t.Errorf("%s: %d not-scored scenarios, want %d", set.Revision, got, w[1])
		}
		seen := map[string]bool{}
		for _, n := range append(append([]string{}, set.Required...), set.NotScored...) {
			if seen[n] {
				t.Errorf("%s: duplicate scenario %q", set.Revision, n)
			}
			seen[n] = true
			if !valid.MatchString(n) {
				t.Errorf("%s: odd scenario name %q", set.Revision, n)
			}
		}
	}
	// docs/dual-era.md §10.8: the not-scored 2025-11-25 scenarios fail the
	// set; the 2026-07-28 ones (the tasks extension, pending) only with -all.
	if s, _ := lookupSet(legacyRevision); !s.StrictNotScored {
		t.Error("2025-11-25 does not fail on its not-scored scenarios")
	}
	if s, _ := lookupSet(modernRevision); s.StrictNotScored {
		t.Error("2026-07-28 fails on its not-scored scenarios without -all")
	}
}

// TestScenarioListsMatchSuite compares the lists of each set with the
// suite's own `conformance list --requirements REV`. It needs npm (or
// CONFORMANCE_CMD) and runs only with CONFORMANCE_VERIFY_LIST=1.
func TestScenarioListsMatchSuite(t *testing.T) {
	if os.Getenv("CONFORMANCE_VERIFY_LIST") != "1" {
		t.Skip("set CONFORMANCE_VERIFY_LIST=1 to ask the installed suite")
	}
	for _, set := range requirementSets() {
		t.Run(set.Revision, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			cmd := suiteCommand(ctx, "list", "--requirements", set.Revision)
			cmd.Stderr = os.Stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v: %v", cmd.Args, err)
			}
			required, notScored := parseList(string(out))
			if !slices.Equal(required, set.Required) {
				t.Errorf("suite's required server scenarios:\n%s", strings.Join(required, "\n"))
			}
			if !slices.Equal(notScored, set.NotScored) {
				t.Errorf("suite's not-scored server scenarios:\n%s", strings.Join(notScored, "\n"))
			}
		})
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
	// The 2025-11-25 list has an added-after-release group, with a client
	// entry between server ones.
	out = `Required for 2025-11-25 (3 scenarios, frozen; run at the 2025-11-25 wire):

Server scenarios (test against a server):
  - server-initialize
  - ping

Client scenarios (test against a client):
  - initialize

Run and reported, but never scored:
  extension (1):
    - auth/dpop [client]
  added-after-release (2):
    - server-session-lifecycle [server]
    - json-schema-2020-12-preservation [client]
  pending (2):
    - json-schema-2020-12 [server]
    - server-sse-polling [server]
`
	req, ns = parseList(out)
	if !slices.Equal(req, []string{"server-initialize", "ping"}) || !slices.Equal(ns, []string{"server-session-lifecycle", "json-schema-2020-12", "server-sse-polling"}) {
		t.Errorf("got %q, %q", req, ns)
	}
}
