package main

import "flag"

// limits bounds what one tool call may read, list or walk. Each has a
// default and a flag (registerLimits).
type limits struct {
	// MaxReadBytes bounds the bytes read from one file (read_text_file,
	// read_media_file, each file of read_multiple_files, the file://
	// template, the files search_content reads).
	MaxReadBytes int64
	// MaxResults bounds the entries of list_directory, the paths of
	// read_multiple_files, the matches of search_files and search_content.
	MaxResults int
	// MaxTreeEntries bounds the entries of directory_tree.
	MaxTreeEntries int
	// MaxTreeDepth bounds the depth directory_tree descends to.
	MaxTreeDepth int
	// MaxWalkEntries bounds the entries search_files and search_content
	// visit in one call.
	MaxWalkEntries int
	// MaxWalkDepth bounds the levels search_files and search_content
	// descend: each level costs a resolution of the whole path.
	MaxWalkDepth int
	// MaxPathDepth bounds the names in a path argument, relative to its
	// allowed directory, so that no tool creates a deeper tree.
	MaxPathDepth int
	// MaxSearchBytes bounds the bytes search_content reads in one call.
	MaxSearchBytes int64
	// MaxEdits bounds the edits of one edit_file call: each costs a pass
	// over the file.
	MaxEdits int
	// MaxQueryBytes bounds the query of search_content, in either mode.
	MaxQueryBytes int
	// MaxRegexpInsts bounds the compiled program of a regexp query, in
	// instructions: matching costs up to its size times the input.
	MaxRegexpInsts int
	// MaxMatchWork bounds the matching work of one search_content call,
	// in units of about a nanosecond of worst-case CPU: the bytes of each
	// line tested times the query's weight (1 for a substring, 4 with
	// ignoreCase, 64 for each instruction of a regexp's program: see
	// regexpInstWeight). One line's match cannot be interrupted, so the
	// budget is checked before each; past it the call is a tool error.
	MaxMatchWork int64
}

// defaultLimits are the limits without flags.
func defaultLimits() limits {
	return limits{
		MaxReadBytes:   8 << 20,
		MaxResults:     1000,
		MaxTreeEntries: 2000,
		MaxTreeDepth:   8,
		MaxWalkEntries: 100_000,
		MaxWalkDepth:   64,
		MaxPathDepth:   64,
		MaxSearchBytes: 64 << 20,
		MaxEdits:       100,
		MaxQueryBytes:  4096,
		MaxRegexpInsts: 10_000,
		MaxMatchWork:   250_000_000, // ≈0.25 s of CPU at worst (README)
	}
}

// registerLimits declares a flag for each limit, its default from
// defaultLimits, and returns where they are stored.
func registerLimits(fl *flag.FlagSet) *limits {
	l := defaultLimits()
	fl.Int64Var(&l.MaxReadBytes, "max-read-bytes", l.MaxReadBytes, "bytes read from one file at most")
	fl.IntVar(&l.MaxResults, "max-results", l.MaxResults, "entries of list_directory, paths of read_multiple_files, matches of search_files and search_content, at most")
	fl.IntVar(&l.MaxTreeEntries, "max-tree-entries", l.MaxTreeEntries, "entries of directory_tree at most")
	fl.IntVar(&l.MaxTreeDepth, "max-tree-depth", l.MaxTreeDepth, "levels directory_tree descends at most")
	fl.IntVar(&l.MaxWalkEntries, "max-walk-entries", l.MaxWalkEntries, "entries search_files and search_content visit in one call at most")
	fl.IntVar(&l.MaxWalkDepth, "max-walk-depth", l.MaxWalkDepth, "levels search_files and search_content descend at most")
	fl.IntVar(&l.MaxPathDepth, "max-path-depth", l.MaxPathDepth, "names in a path argument, below its allowed directory, at most")
	fl.Int64Var(&l.MaxSearchBytes, "max-search-bytes", l.MaxSearchBytes, "bytes search_content reads in one call at most")
	fl.IntVar(&l.MaxEdits, "max-edits", l.MaxEdits, "edits of one edit_file call at most")
	fl.IntVar(&l.MaxQueryBytes, "max-query-bytes", l.MaxQueryBytes, "bytes of a search_content query at most")
	fl.IntVar(&l.MaxRegexpInsts, "max-regexp-insts", l.MaxRegexpInsts, "instructions of a compiled search_content regexp at most")
	fl.Int64Var(&l.MaxMatchWork, "max-match-work", l.MaxMatchWork, "matching work of one search_content call at most, in units of about a nanosecond of worst-case CPU: line bytes times 1 (substring), 4 (ignoreCase) or 64 per regexp instruction; past it, a tool error")
	return &l
}
