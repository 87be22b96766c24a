package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"path"
	"regexp"
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
	Truncated bool     `json:"truncated,omitempty" jsonschema:"the search stopped at -max-results matches or -max-walk-entries entries"`
}

func (f *fsys) searchFiles(ctx context.Context, _ *server.Request, in searchFilesIn) (searchFilesOut, error) {
	if _, err := path.Match(in.Pattern, ""); err != nil {
		return searchFilesOut{}, fmt.Errorf("pattern %q: %w", in.Pattern, err)
	}
	out := searchFilesOut{Matches: []string{}}
	_, trunc, err := f.walk(ctx, in.Path, -1, f.lim.MaxWalkEntries, func(v visit) error {
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
	Truncated     bool           `json:"truncated,omitempty" jsonschema:"the search stopped at a limit (-max-results, -max-walk-entries, -max-search-bytes)"`
}

// searchContent finds lines of text files that hold a substring or match
// a regular expression (RE2: linear in the input, whatever the pattern).
// Files that are not text or are larger than -max-read-bytes are skipped.
func (f *fsys) searchContent(ctx context.Context, _ *server.Request, in searchContentIn) (searchContentOut, error) {
	match, err := matcher(in)
	if err != nil {
		return searchContentOut{}, err
	}
	out := searchContentOut{Matches: []contentMatch{}}
	var read int64
	search := func(d *dir, rel, name string) error {
		if ok, _ := path.Match(in.FilePattern, name); in.FilePattern != "" && !ok {
			return nil
		}
		b, err := f.readFile(d.abs(rel), f.lim.MaxReadBytes, false, false)
		if err != nil || !isText(b) {
			return nil // unreadable, too large or binary: skipped
		}
		if read += int64(len(b)); read > f.lim.MaxSearchBytes {
			out.Truncated = true
			return fs.SkipAll
		}
		out.FilesSearched++
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, len(b)+1)
		for n := 1; sc.Scan(); n++ {
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
			return out, err
		}
		return out, nil
	}
	_, trunc, err := f.walk(ctx, in.Path, -1, f.lim.MaxWalkEntries, func(v visit) error {
		if !v.e.Type().IsRegular() {
			return nil
		}
		return search(v.d, v.rel, v.e.Name())
	})
	out.Truncated = out.Truncated || trunc
	return out, err
}

// matcher builds the line test of a search.
func matcher(in searchContentIn) (func(string) bool, error) {
	switch in.Mode {
	case "", "substring":
		q := in.Query
		if in.IgnoreCase {
			q = strings.ToLower(q)
			return func(s string) bool { return strings.Contains(strings.ToLower(s), q) }, nil
		}
		return func(s string) bool { return strings.Contains(s, q) }, nil
	case "regexp":
		expr := in.Query
		if in.IgnoreCase {
			expr = "(?i)" + expr
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			return nil, fmt.Errorf("query: %w", err)
		}
		return re.MatchString, nil
	}
	return nil, fmt.Errorf("mode %q: want substring or regexp", in.Mode)
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
