package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/schema"
)

// An extTarget is a pinned extension schema and the package of this module
// generated from it (gen -ext NAME), its shared definitions mapped onto the
// package of a core target (see extension.go).
type extTarget struct {
	Extension string // an extension pinned in ../schema (schema.LookupExtension)
	Package   string // Go package name
	Dir       string // slash-separated folder, from the module root
	Core      target // the core package it refers to
}

// extTargets are the generated extension packages of this module.
//
// The tasks extension's types go to ext/tasks/taskproto, package taskproto:
// ext/tasks is the extension itself (its API, store and handlers), which
// imports the wire types as protocol code imports protocol; a package name
// of its own (not "protocol" or "wire") lets a file import both the core
// and the extension types without renaming either, and reads as what it
// is, the tasks extension's protocol types (as protobuf-go's …pb packages).
//
// The MCP Apps extension's types go to ext/apps/appsproto, package
// appsproto, for the same reasons.
var extTargets = []extTarget{
	{Extension: schema.ExtTasks, Package: "taskproto", Dir: "ext/tasks/taskproto", Core: targets[0]},
	{Extension: schema.ExtApps, Package: "appsproto", Dir: "ext/apps/appsproto", Core: targets[0]},
}

// lookupExtTarget returns the target of an extension.
func lookupExtTarget(name string) (extTarget, error) {
	var names []string
	for _, t := range extTargets {
		if t.Extension == name {
			return t, nil
		}
		names = append(names, t.Extension)
	}
	return extTarget{}, fmt.Errorf("no generated package for extension %q (generated: %s)", name, strings.Join(names, ", "))
}

// generate loads the extension's pinned schema and its core target's (from
// $MCP_SPEC_DIR or the verified download cache) and generates the package.
func (t extTarget) generate(ctx context.Context) (*Result, *ExtReport, schema.Source, error) {
	pin, err := schema.LookupExtension(t.Extension)
	if err != nil {
		return nil, nil, schema.Source{}, err
	}
	data, src, err := schema.Load(ctx, pin, schema.Options{})
	if err != nil {
		return nil, nil, schema.Source{}, err
	}
	coreData, _, _, err := t.Core.load(ctx)
	if err != nil {
		return nil, nil, schema.Source{}, err
	}
	cfg := Config{Package: t.Package, Revision: pin.Revision, Commit: pin.Commit, SHA256: pin.SHA256,
		Source: pin.Repository + " " + pin.Path}
	if pin.Package != "" {
		// A package pin has no commit: the headers name the package, its
		// hash and the file's path inside it.
		cfg.Commit = "none (package " + pin.Package + ", sha256 " + pin.PackageSHA256 + ")"
		cfg.Source = pin.Repository + " (" + pin.Package + ") " + pin.PackagePath
	}
	ec := ExtConfig{Extension: t.Extension, CoreImport: modulePath + "/" + t.Core.Dir, CorePackage: t.Core.Package}
	res, report, err := GenerateExt(data, coreData, cfg, ec)
	if err != nil {
		return nil, nil, schema.Source{}, fmt.Errorf("extension %s: %w", t.Extension, err)
	}
	return res, report, src, nil
}

// summary is the line gen prints for an extension package: what was
// mapped, emitted and overridden.
func (r *ExtReport) summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d definitions mapped onto the core, %d emitted", len(r.Mapped), len(r.Emitted))
	if len(r.Overridden) > 0 {
		fmt.Fprintf(&b, ", %d overridden", len(r.Overridden))
	}
	if len(r.Demoted) > 0 {
		fmt.Fprintf(&b, ", %d emitted for their references (%s)", len(r.Demoted), strings.Join(r.Demoted, ", "))
	}
	if len(r.Pulled) > 0 {
		fmt.Fprintf(&b, ", %d inline core types copied (%s)", len(r.Pulled), strings.Join(r.Pulled, ", "))
	}
	for _, n := range slices.Sorted(maps.Keys(r.Rewritten)) {
		fmt.Fprintf(&b, "; schema rule %s: %d places", n, r.Rewritten[n])
	}
	return b.String()
}
