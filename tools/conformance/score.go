package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Check statuses written by the suite into checks.json.
const (
	statusSuccess = "SUCCESS"
	statusFailure = "FAILURE"
	statusWarning = "WARNING"
	statusInfo    = "INFO"
	statusSkipped = "SKIPPED"
)

// check is one entry of a checks.json file. The suite writes a JSON array of
// these (pretty-printed); fields not used here (timestamp, specReferences,
// details) are ignored.
type check struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Description  string `json:"description"`
	Status       string `json:"status"`
	ErrorMessage string `json:"errorMessage"`
}

// resultDirRE matches the folder the suite writes per server scenario with
// -o DIR: "server-<scenario>-<ISO timestamp with ':' and '.' as '-'>", e.g.
// server-server-stateless-2026-11-30T01-48-29-203Z. The timestamp pattern is
// the suite's own (it strips it with /-\d{4}-\d{2}-\d{2}T[\d-]+Z$/).
var resultDirRE = regexp.MustCompile(`^server-(.+)-(\d{4}-\d{2}-\d{2}T[\d-]+Z)$`)

// problemMissing marks a scenario without any result folder.
const problemMissing = "missing: no result folder"

type scenarioSet int

const (
	setRequired scenarioSet = iota
	setNotScored
	setUnknown // a result folder for a scenario in neither list
)

func (s scenarioSet) String() string {
	switch s {
	case setRequired:
		return "required"
	case setNotScored:
		return "not scored"
	default:
		return "unknown"
	}
}

type counts struct {
	Success, Failure, Warning, Info, Skipped int
}

// scenarioResult is the outcome of one scenario: the latest result folder
// found for it, or a problem when there is none or it cannot be used.
type scenarioResult struct {
	Name    string
	Set     scenarioSet
	Dir     string // folder name of the latest run; "" when missing
	Runs    int    // result folders found for this scenario
	Counts  counts
	Problem string  // why the scenario has no usable checks; "" if it has
	Failed  []check // FAILURE checks and checks with an unknown status
}

// OK reports whether the scenario passed: it has checks and none failed.
// WARNING, INFO and SKIPPED checks do not fail a scenario.
func (r scenarioResult) OK() bool {
	return r.Problem == "" && len(r.Failed) == 0
}

// failedCount is the number of failures the scenario adds to the totals: its
// failed checks, or 1 when it has no usable result (as the suite counts a
// scenario that threw: "0 passed, 1 failed").
func (r scenarioResult) failedCount() int {
	if r.Problem != "" {
		return 1
	}
	return len(r.Failed)
}

type report struct {
	Dir       string
	Set       requirementSet
	Scenarios []scenarioResult // required first (list order), then not scored, then unknown
}

// scoreDir reads every DIR/server-<scenario>-<timestamp>/checks.json of a
// run of set. When a scenario has several folders (DIR reused), the latest
// timestamp wins. A DIR that does not exist is an error unless
// missingOK, when it scores as a run that left no results.
func scoreDir(dir string, set requirementSet, missingOK bool) (*report, error) {
	entries, err := os.ReadDir(dir)
	if missingOK && errors.Is(err, fs.ErrNotExist) {
		entries, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	type found struct {
		dir, ts string
		runs    int
	}
	latest := map[string]*found{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		m := resultDirRE.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		name, ts := m[1], m[2]
		f := latest[name]
		if f == nil {
			f = &found{}
			latest[name] = f
		}
		f.runs++
		if ts > f.ts { // fixed-width ISO timestamps sort as strings
			f.dir, f.ts = e.Name(), ts
		}
	}

	rep := &report{Dir: dir, Set: set}
	seen := map[string]bool{}
	add := func(name string, set scenarioSet) {
		seen[name] = true
		r := scenarioResult{Name: name, Set: set}
		if f := latest[name]; f != nil {
			r.Dir, r.Runs = f.dir, f.runs
			readChecks(filepath.Join(dir, f.dir), &r)
		} else {
			r.Problem = problemMissing
		}
		rep.Scenarios = append(rep.Scenarios, r)
	}
	for _, n := range set.Required {
		add(n, setRequired)
	}
	for _, n := range set.NotScored {
		add(n, setNotScored)
	}
	var unknown []string
	for n := range latest {
		if !seen[n] {
			unknown = append(unknown, n)
		}
	}
	sort.Strings(unknown)
	for _, n := range unknown {
		add(n, setUnknown)
	}
	return rep, nil
}

func readChecks(dir string, r *scenarioResult) {
	data, err := os.ReadFile(filepath.Join(dir, "checks.json"))
	if errors.Is(err, fs.ErrNotExist) {
		// The suite creates the folder before running the scenario and writes
		// checks.json after it; a scenario that threw leaves the folder empty.
		r.Problem = "crashed: no checks.json"
		return
	}
	if err != nil {
		r.Problem = "unreadable: " + err.Error()
		return
	}
	var checks []check
	if err := json.Unmarshal(data, &checks); err != nil {
		r.Problem = "invalid checks.json: " + err.Error()
		return
	}
	if len(checks) == 0 {
		r.Problem = "no checks in checks.json"
		return
	}
	for _, c := range checks {
		switch c.Status {
		case statusSuccess:
			r.Counts.Success++
		case statusFailure:
			r.Counts.Failure++
			r.Failed = append(r.Failed, c)
		case statusWarning:
			r.Counts.Warning++
		case statusInfo:
			r.Counts.Info++
		case statusSkipped:
			r.Counts.Skipped++
		default:
			// Fail closed on a status this tool does not know.
			r.Counts.Failure++
			r.Failed = append(r.Failed, c)
		}
	}
}

type scoreOptions struct {
	RequiredOnly bool // show only required scenarios
	All          bool // not-scored (and unknown) scenarios' failures fail too
}

// strict reports whether the failures of scenarios other than the
// required ones fail the set: with -all, or for a StrictNotScored set
// (its not-scored scenarios only, not unknown ones).
func (rep *report) strict(opts scoreOptions, r scenarioResult) bool {
	return opts.All || (rep.Set.StrictNotScored && r.Set == setNotScored)
}

// scored reports whether r's result decides the verdict under opts.
func (rep *report) scored(opts scoreOptions, r scenarioResult) bool {
	if r.Set == setRequired {
		return true
	}
	// A not-scored scenario that was not run at all is not a failure even
	// with -all; only its failed checks or a crash are.
	return rep.strict(opts, r) && r.Problem != problemMissing
}

// passed reports whether the run passes: every required scenario has a
// result without FAILURE checks (and with -all, or for a StrictNotScored
// set, every other one that ran).
func (rep *report) passed(opts scoreOptions) bool {
	for _, r := range rep.Scenarios {
		if rep.scored(opts, r) && !r.OK() {
			return false
		}
	}
	return true
}

// tally counts the checks and scenarios of one part of a report.
type tally struct{ passed, failed, ok, total int }

// tallies returns the required scenarios' tally, and that of the others
// that ran (not-scored scenarios that were not run count nowhere).
func (rep *report) tallies() (req, other tally) {
	for _, r := range rep.Scenarios {
		t := &other
		if r.Set == setRequired {
			t = &req
		} else if r.Problem == problemMissing {
			continue
		}
		t.passed += r.Counts.Success
		t.failed += r.failedCount()
		t.total++
		if r.OK() {
			t.ok++
		}
	}
	return req, other
}

// scoredChecks returns the checks that decide the verdict: those of the
// required scenarios, and of the others when they are scored.
func (rep *report) scoredChecks(opts scoreOptions) (passed, failed int) {
	for _, r := range rep.Scenarios {
		if rep.scored(opts, r) {
			passed += r.Counts.Success
			failed += r.failedCount()
		}
	}
	return passed, failed
}

func (rep *report) print(w io.Writer, opts scoreOptions) {
	shown := make([]scenarioResult, 0, len(rep.Scenarios))
	for _, r := range rep.Scenarios {
		if opts.RequiredOnly && r.Set != setRequired {
			continue
		}
		shown = append(shown, r)
	}
	width := len("SCENARIO")
	for _, r := range shown {
		width = max(width, len(r.Name))
	}

	fmt.Fprintf(w, "Conformance results in %s (requirements %s)\n\n", rep.Dir, rep.Set.Revision)
	fmt.Fprintf(w, "%-*s  %-10s  %4s  %4s  %4s  %4s  %4s  %s\n",
		width, "SCENARIO", "SET", "PASS", "FAIL", "WARN", "INFO", "SKIP", "RESULT")
	for _, r := range shown {
		result := "ok"
		switch {
		case r.Problem == problemMissing && r.Set != setRequired:
			result = "not run"
		case r.Problem != "":
			result = "FAIL (" + r.Problem + ")"
		case !r.OK():
			result = "FAIL"
		}
		if r.Runs > 1 {
			result += fmt.Sprintf(" [latest of %d runs]", r.Runs)
		}
		if r.Problem != "" {
			fmt.Fprintf(w, "%-*s  %-10s  %4s  %4s  %4s  %4s  %4s  %s\n",
				width, r.Name, r.Set, "-", "-", "-", "-", "-", result)
			continue
		}
		c := r.Counts
		fmt.Fprintf(w, "%-*s  %-10s  %4d  %4d  %4d  %4d  %4d  %s\n",
			width, r.Name, r.Set, c.Success, c.Failure, c.Warning, c.Info, c.Skipped, result)
	}

	// Failed checks of the scenarios that decide the verdict.
	var lines []string
	for _, r := range rep.Scenarios {
		if !rep.scored(opts, r) || r.OK() {
			continue
		}
		prefix := r.Name
		if r.Set != setRequired {
			prefix += " (" + r.Set.String() + ")"
		}
		if r.Problem != "" {
			where := r.Dir
			if where == "" {
				where = "no server-" + r.Name + "-<timestamp> folder"
			}
			lines = append(lines, fmt.Sprintf("  %s: %s (%s)", prefix, r.Problem, where))
			continue
		}
		for _, c := range r.Failed {
			msg := oneLine(c.ErrorMessage)
			if msg == "" {
				msg = c.Description
			}
			status := ""
			if c.Status != statusFailure {
				status = " [status " + c.Status + "]"
			}
			lines = append(lines, fmt.Sprintf("  %s / %s%s: %s", prefix, c.ID, status, msg))
		}
	}
	if len(lines) > 0 {
		fmt.Fprintf(w, "\nFailed checks:\n%s\n", strings.Join(lines, "\n"))
	}

	req, other := rep.tallies()

	fmt.Fprintln(w)
	var bad []string
	for _, r := range rep.Scenarios {
		if rep.scored(opts, r) && !r.OK() {
			bad = append(bad, r.Name)
		}
	}
	if len(bad) == 0 {
		fmt.Fprintln(w, "verdict: PASS")
	} else {
		fmt.Fprintf(w, "verdict: FAIL, %d scenario(s) failed: %s\n", len(bad), strings.Join(bad, ", "))
	}
	if !opts.RequiredOnly {
		note := "informational"
		switch {
		case opts.All:
			note = "scored with -all"
		case rep.Set.StrictNotScored:
			note = "scored: any failed check fails"
		}
		fmt.Fprintf(w, "not scored (%s): %d passed, %d failed; scenarios ok: %d/%d\n",
			note, other.passed, other.failed, other.ok, other.total)
	}
	fmt.Fprintf(w, "required scenarios ok: %d/%d\n", req.ok, len(rep.Set.Required))
	if opts.All || rep.Set.StrictNotScored {
		fmt.Fprintf(w, "required: %d passed, %d failed\n", req.passed, req.failed)
		fmt.Fprintf(w, "all: %d passed, %d failed\n", req.passed+other.passed, req.failed+other.failed)
	} else {
		// Kept last: CI reads a closing "N passed, M failed" line.
		fmt.Fprintf(w, "required: %d passed, %d failed\n", req.passed, req.failed)
	}
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:297] + "..."
	}
	return s
}

// runScore implements `conformance score [-requirements REVS]
// [-required-only] [-all] DIR` and returns the exit code: 0 pass, 1 fail,
// 2 usage or I/O error.
func runScore(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("score", flag.ContinueOnError)
	fset.SetOutput(stderr)
	var opts scoreOptions
	revs := fset.String("requirements", "", "comma-separated requirement revisions to score (default: every DIR/<revision>\n"+
		"folder of a run, or "+modernRevision+" when DIR holds the results of one suite run)")
	fset.BoolVar(&opts.RequiredOnly, "required-only", false, "show only the required scenarios")
	fset.BoolVar(&opts.All, "all", false, "fail on failures of not-scored scenarios too")
	fset.Usage = func() {
		fmt.Fprintf(stderr, "usage: conformance score [-requirements REVS] [-required-only] [-all] DIR\n\n"+
			"Scores the suite's checks.json files as `conformance run` leaves them,\n"+
			"DIR/<revision>/server-<scenario>-<timestamp>/checks.json for %s,\n"+
			"or those of one `conformance server --requirements REV -o DIR` in DIR itself.\n\n", defaultRevisions)
		fset.PrintDefaults()
	}
	if err := fset.Parse(args); err != nil {
		return 2
	}
	if fset.NArg() != 1 {
		fset.Usage()
		return 2
	}
	dir := fset.Arg(0)
	layered := false
	for _, set := range requirementSets() {
		if fi, err := os.Stat(filepath.Join(dir, set.Revision)); err == nil && fi.IsDir() {
			layered = true
		}
	}
	list := *revs
	if list == "" {
		list = modernRevision
		if layered {
			list = defaultRevisions
		}
	}
	sets, err := parseRevisions(list)
	if err != nil {
		fmt.Fprintf(stderr, "conformance score: %v\n", err)
		return 2
	}
	if !layered && len(sets) > 1 {
		fmt.Fprintf(stderr, "conformance score: %s has no <revision> folders; name one revision with -requirements\n", dir)
		return 2
	}
	return scoreAndPrint(dir, sets, layered, opts, stdout, stderr)
}

// parseRevisions reads a comma-separated list of requirement revisions.
func parseRevisions(list string) ([]requirementSet, error) {
	var sets []requirementSet
	seen := map[string]bool{}
	for _, rev := range strings.Split(list, ",") {
		rev = strings.TrimSpace(rev)
		set, ok := lookupSet(rev)
		if !ok {
			return nil, fmt.Errorf("unknown requirement revision %q (known: %s)", rev, defaultRevisions)
		}
		if seen[rev] {
			return nil, fmt.Errorf("requirement revision %s named twice", rev)
		}
		seen[rev] = true
		sets = append(sets, set)
	}
	return sets, nil
}

// scoreAndPrint scores and prints each set, from dir/<revision> when
// layered (a missing folder scores as a run without results) or from dir
// itself (one set), then, for several sets, a summary with each set's
// score. It returns 0 when every set passes, 1 when one fails, 2 on an
// I/O error.
func scoreAndPrint(dir string, sets []requirementSet, layered bool, opts scoreOptions, stdout, stderr io.Writer) int {
	var reps []*report
	for i, set := range sets {
		d := dir
		if layered {
			d = filepath.Join(dir, set.Revision)
		}
		rep, err := scoreDir(d, set, layered)
		if err != nil {
			fmt.Fprintf(stderr, "conformance: %v\n", err)
			return 2
		}
		if len(sets) > 1 {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			fmt.Fprintf(stdout, "== requirements %s ==\n\n", set.Revision)
		}
		rep.print(stdout, opts)
		reps = append(reps, rep)
	}
	code := 0
	for _, rep := range reps {
		if !rep.passed(opts) {
			code = 1
		}
	}
	if len(reps) > 1 {
		printSummary(stdout, reps, opts)
	}
	return code
}

// printSummary prints one score line per set and the verdict of all; its
// last line totals the checks that decide the verdicts.
func printSummary(w io.Writer, reps []*report, opts scoreOptions) {
	fmt.Fprintf(w, "\n== scores ==\n\n")
	var passed, failed int
	var bad []string
	for _, rep := range reps {
		req, other := rep.tallies()
		p, f := rep.scoredChecks(opts)
		passed += p
		failed += f
		verdict := "PASS"
		if !rep.passed(opts) {
			verdict = "FAIL"
			bad = append(bad, rep.Set.Revision)
		}
		counted := "required"
		switch {
		case opts.All:
			counted = "all"
		case rep.Set.StrictNotScored:
			counted = "required and not scored"
		}
		fmt.Fprintf(w, "%s: %s; required scenarios ok %d/%d, not scored ok %d/%d; checks of %s: %d passed, %d failed\n",
			rep.Set.Revision, verdict, req.ok, len(rep.Set.Required), other.ok, other.total, counted, p, f)
	}
	if len(bad) == 0 {
		fmt.Fprintln(w, "verdict: PASS")
	} else {
		fmt.Fprintf(w, "verdict: FAIL (%s)\n", strings.Join(bad, ", "))
	}
	fmt.Fprintf(w, "scored: %d passed, %d failed\n", passed, failed)
}
