package schema

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// ExtTasks is the name of the pinned tasks extension
// (github.com/modelcontextprotocol/ext-tasks), for [LookupExtension].
const ExtTasks = "tasks"

// ExtApps is the name of the pinned MCP Apps extension
// (io.modelcontextprotocol/ui, github.com/modelcontextprotocol/ext-apps),
// for [LookupExtension]. Its schema is pinned as published in the npm
// package @modelcontextprotocol/ext-apps (no commit: see [Pin.Package]).
const ExtApps = "apps"

// extPrefix starts the folder of an extension pin: schema/ext-<name>/pin.txt.
// Such folders are not revisions: [Revisions] and [Lookup] skip them.
const extPrefix = "ext-"

// LookupExtension returns the embedded pin of the extension name (e.g.
// [ExtTasks]), from schema/ext-<name>/pin.txt. The file has the keys of a
// revision pin; its revision is the extension schema's own folder name
// ("draft"), and its repository must be named ext-<name>. The returned
// pin's SpecSubdir is that repository name, so [Load] reads the file from
// $MCP_SPEC_DIR/ext-<name>/<path>: a spec folder holds each extension
// repository's checkout under its name.
func LookupExtension(name string) (Pin, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || !fs.ValidPath(name) {
		return Pin{}, fmt.Errorf("schema: invalid extension name %q", name)
	}
	dir := extPrefix + name
	file := path.Join(dir, "pin.txt")
	data, err := pinFS.ReadFile(file)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Pin{}, fmt.Errorf("schema: no pin for extension %q (pinned: %s)", name, strings.Join(Extensions(), ", "))
		}
		return Pin{}, fmt.Errorf("schema: %w", err)
	}
	p, err := parsePin(data)
	if err != nil {
		return Pin{}, fmt.Errorf("schema: %s: %w", file, err)
	}
	if repo := path.Base(p.Repository); repo != dir {
		return Pin{}, fmt.Errorf("schema: %s: repository %q is not named %s", file, p.Repository, dir)
	}
	p.SpecSubdir = dir
	return p, nil
}

// Extensions lists the extensions that have an embedded pin, in name
// order. Each one can be passed to [LookupExtension].
func Extensions() []string {
	names, _ := fs.Glob(pinFS, extPrefix+"*/pin.txt")
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, strings.TrimPrefix(path.Dir(n), extPrefix))
	}
	sort.Strings(out)
	return out
}
