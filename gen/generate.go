package main

import (
	"fmt"
)

// Config says what to generate and what to stamp into the file headers.
type Config struct {
	Package  string // Go package name
	Revision string // MCP revision, e.g. "2026-07-28"
	Commit   string // upstream commit of the schema
	SHA256   string // sha256 of the schema file
}

// Result is what Generate produces: the files, and facts about the run that
// the tests and the command report.
type Result struct {
	Files map[string][]byte // file name → gofmt'ed Go source
	Model *Model
	// CrossChecked counts the structs whose members were compared with
	// go-jsonschema's rendering; GoJSONSchemaWarnings are its warnings.
	CrossChecked         int
	GoJSONSchemaWarnings []string
	Skeleton             *skeleton
}

// Generate turns a JSON schema into the files of a Go package. It touches no
// disk: the command writes the files, the staleness test compares them.
func Generate(schema []byte, cfg Config) (*Result, error) {
	s, defPath, err := parseSchema(schema)
	if err != nil {
		return nil, err
	}
	m, err := buildModel(s, defPath)
	if err != nil {
		return nil, err
	}
	m.Package, m.Revision, m.Commit, m.SHA256 = cfg.Package, cfg.Revision, cfg.Commit, cfg.SHA256
	sk, warnings, err := runGoJSONSchema(s, cfg.Package)
	if err != nil {
		return nil, err
	}
	checked, err := crossCheck(m, sk, defPath)
	if err != nil {
		return nil, fmt.Errorf("cross-check with go-jsonschema: %w", err)
	}
	g := &emitter{m: m}
	out := map[string][]byte{}
	g.emitTypes()
	if err := g.finish("types_gen.go", "Types: one Go type per schema definition, plus the inline types they need.", out); err != nil {
		return nil, err
	}
	g.emitJSON()
	if err := g.finish("json_gen.go", "Codecs: single-pass strict decoders and encoders for every type.", out); err != nil {
		return nil, err
	}
	g.emitMethods()
	if err := g.finish("methods_gen.go", "Methods: the method table of the revision.", out); err != nil {
		return nil, err
	}
	g.emitErrors()
	if err := g.finish("errors_gen.go", "Errors: JSON-RPC error codes fixed by the schema.", out); err != nil {
		return nil, err
	}
	g.emitRegistry()
	if err := g.finish("registry_gen.go", "Registry: schema type names to Go values.", out); err != nil {
		return nil, err
	}
	return &Result{Files: out, Model: m, CrossChecked: checked, GoJSONSchemaWarnings: warnings, Skeleton: sk}, nil
}
