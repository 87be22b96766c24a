package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/server"
)

type searchFilesIn struct {
	Path    string `json:"path" jsonschema:"the directory to search under, recursively"`
	Pattern string `json:"pattern" jsonschema:"a glob matched against each entry's name (path.Match syntax: * ? [a-z]); a pattern with / is matched against the path relative to path"`
}

type searchFilesOut struct {
	Matches   []string `json:"matches" jsonschema:"absolute paths"`
	Truncated bool     `json:"truncated,omitempty" jsonschema:"the search stopped at -max-results matches or -max-walk-entries entries, or did not descend below -max-walk-depth"`
}

func (f *fsys) searchFiles(ctx context.Context, _ *server.Request, in searchFilesIn) (searchFilesOut, error) {
	if _, err := path.Match(in.Pattern, ""); err != nil {
		return searchFilesOut{}, fmt.Errorf("pattern %q: %w", in.Pattern, err)
	}
	out := searchFilesOut{Matches: []string{}}
	trunc, err := f.searchWalk(ctx, in.Path, func(v visit) error {
		name := v.e.Name()
		if strings.Contains(in.Pattern, "/") {
			name = v.sub
		}
		if ok, _ := path.Match(in.Pattern, name); !ok {
			return nil
		}
		if len(out.Matches) == f.lim.MaxResults {
			out.Truncated = true
			return fs.SkipAll
		}
		out.Matches = append(out.Matches, v.d.abs(v.rel))
		return nil
	})
	out.Truncated = out.Truncated || trunc
	return out, err
}

type searchContentIn struct {
	Path        string `json:"path" jsonschema:"the directory to search under, recursively (or one file)"`
	Query       string `json:"query" jsonschema:"the text to find, or a regular expression (RE2 syntax) when mode is regexp"`
	Mode        string `json:"mode,omitempty" jsonschema:"substring (the default) or regexp"`
	FilePattern string `json:"filePattern,omitempty" jsonschema:"only files whose name matches this glob"`
	IgnoreCase  bool   `json:"ignoreCase,omitempty"`
}

type contentMatch struct {
	Path string `json:"path"`
	Line int    `json:"line" jsonschema:"1-based"`
	Text string `json:"text" jsonschema:"the line, cut to 500 bytes"`
}

type searchContentOut struct {
	Matches       []contentMatch `json:"matches"`
	FilesSearched int            `json:"filesSearched"`
	BytesRead     int64          `json:"bytesRead" jsonschema:"bytes read in all, text or not (-max-search-bytes at most)"`
	Truncated     bool           `json:"truncated,omitempty" jsonschema:"the search stopped at a limit (-max-results, -max-walk-entries, -max-walk-depth, -max-search-bytes)"`
}

// searchContent finds lines of text files that hold a substring or match
// a regular expression (RE2: linear in the input, whatever the pattern).
// Files that are not text or are larger than -max-read-bytes are skipped.
func (f *fsys) searchContent(ctx context.Context, _ *server.Request, in searchContentIn) (searchContentOut, error) {
	match, weight, err := matcher(in, f.lim)
	if err != nil {
		return searchContentOut{}, err
	}
	var work int64
	out := searchContentOut{Matches: []contentMatch{}}
	search := func(d *dir, rel, name string) error {
		if ok, _ := path.Match(in.FilePattern, name); in.FilePattern != "" && !ok {
			return nil
		}
		left := f.lim.MaxSearchBytes - out.BytesRead
		b, err := f.readFile(d.abs(rel), min(f.lim.MaxReadBytes, left), false, false)
		out.BytesRead += int64(len(b)) // binary files count too
		if errors.Is(err, errTooLarge) && left < f.lim.MaxReadBytes {
			out.Truncated = true // within -max-read-bytes, beyond what is left of -max-search-bytes
			return fs.SkipAll
		}
		if err != nil || !isText(b) {
			return nil // unreadable, too large or binary: skipped
		}
		out.FilesSearched++
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, len(b)+1)
		for n := 1; sc.Scan(); n++ {
			if err := ctx.Err(); err != nil {
				return err // the client left: stop burning CPU for it
			}
			if work += int64(len(sc.Bytes())) * weight; work > f.lim.MaxMatchWork {
				// One match cannot be interrupted: never start one past the
				// budget, and say why rather than return a partial answer.
				return &matchBudgetError{budget: f.lim.MaxMatchWork, weight: weight, path: d.abs(rel), line: n}
			}
			if !match(sc.Text()) {
				continue
			}
			if len(out.Matches) == f.lim.MaxResults {
				out.Truncated = true
				return fs.SkipAll
			}
			out.Matches = append(out.Matches, contentMatch{Path: d.abs(rel), Line: n, Text: cut(sc.Text(), 500)})
		}
		return nil
	}
	d, rel, info, err := f.stat(in.Path)
	if err != nil {
		return out, err
	}
	if !info.IsDir() {
		if err := search(d, rel, info.Name()); err != nil && err != fs.SkipAll {
			return searchContentOut{}, err
		}
		return out, nil
	}
	trunc, err := f.searchWalk(ctx, in.Path, func(v visit) error {
		if !v.e.Type().IsRegular() {
			return nil
		}
		return search(v.d, v.rel, v.e.Name())
	})
	out.Truncated = out.Truncated || trunc
	if errors.As(err, new(*matchBudgetError)) {
		return searchContentOut{}, err
	}
	return out, err
}

// matchBudgetError is the tool error of a search_content call whose
// matching work would pass -max-match-work.
type matchBudgetError struct {
	budget, weight int64
	path           string
	line           int
}

func (e *matchBudgetError) Error() string {
	return fmt.Sprintf("search stopped at line %d of %s: the matching work would pass its budget of %d units (-max-match-work); "+
		"this query costs %d units a byte of text (a regexp: %d a byte for each instruction of its program), so search fewer or shorter lines (path, filePattern) or use a simpler query",
		e.line, e.path, e.budget, e.weight, regexpInstWeight)
}

// The work of matching, in units of about a nanosecond of CPU on the
// machine the defaults were measured on (2 cores, Go 1.26: see
// BenchmarkSearchContentWorst and the README), for each byte of a line:
//   - substringWeight: strings.Contains (bytealg), with the line scan;
//   - substringFoldWeight: with ignoreCase, strings.ToLower of each line;
//   - regexpInstWeight: for each instruction of the compiled program. Go's
//     RE2 matcher is linear in input × program size, but the constant
//     varies by two orders of magnitude with the pattern: a simulated NFA
//     with every instruction alive on each byte ("(?i)(?:s?){300}z" on
//     "sss…") measured 30–45 ns a byte and instruction; the weight is that
//     worst case, rounded up, since the budget is checked before a match
//     starts and one match cannot be interrupted.
const (
	substringWeight     = 1
	substringFoldWeight = 4
	regexpInstWeight    = 64
)

// searchWalk walks the tree under p for a search, to -max-walk-depth
// levels and -max-walk-entries entries; truncated says it stopped at the
// entry bound or left a directory at the depth bound unvisited.
func (f *fsys) searchWalk(ctx context.Context, p string, fn func(visit) error) (truncated bool, err error) {
	_, trunc, err := f.walk(ctx, p, f.lim.MaxWalkDepth, f.lim.MaxWalkEntries, func(v visit) error {
		truncated = truncated || (v.e.IsDir() && v.depth >= f.lim.MaxWalkDepth)
		return fn(v)
	})
	return truncated || trunc, err
}

// matcher builds the line test of a search and its work per byte of a
// line (substringWeight, substringFoldWeight, or regexpInstWeight for each
// instruction of the regexp), refusing a query longer than
// -max-query-bytes or a regexp compiling to more than -max-regexp-insts.
func matcher(in searchContentIn, lim limits) (func(string) bool, int64, error) {
	if len(in.Query) > lim.MaxQueryBytes {
		return nil, 0, fmt.Errorf("query: %d bytes, more than the limit of %d (-max-query-bytes)", len(in.Query), lim.MaxQueryBytes)
	}
	switch in.Mode {
	case "", "substring":
		q := in.Query
		if in.IgnoreCase {
			q = strings.ToLower(q)
			return func(s string) bool { return strings.Contains(strings.ToLower(s), q) }, substringFoldWeight, nil
		}
		return func(s string) bool { return strings.Contains(s, q) }, substringWeight, nil
	case "regexp":
		expr := in.Query
		if in.IgnoreCase {
			expr = "(?i)" + expr
		}
		return compileBounded(expr, lim.MaxRegexpInsts)
	}
	return nil, 0, fmt.Errorf("mode %q: want substring or regexp", in.Mode)
}

// compileBounded compiles a regexp whose program has max instructions
// at most: parse and size it first, so that a refused pattern costs
// little.
func compileBounded(expr string, max int) (func(string) bool, int64, error) {
	sy, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, 0, fmt.Errorf("query: %w", err)
	}
	prog, err := syntax.Compile(sy.Simplify())
	if err != nil {
		return nil, 0, fmt.Errorf("query: %w", err)
	}
	if len(prog.Inst) > max {
		return nil, 0, fmt.Errorf("query: the regexp compiles to %d instructions, more than the limit of %d (-max-regexp-insts)", len(prog.Inst), max)
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, 0, fmt.Errorf("query: %w", err)
	}
	return re.MatchString, int64(len(prog.Inst)) * regexpInstWeight, nil
}

// cut shortens s to at most n bytes, on a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
