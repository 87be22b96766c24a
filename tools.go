//go:build tools

// This file pins the generator tooling in go.mod. gen/ uses
// github.com/atombender/go-jsonschema as a library (its schema loader and
// its models-only generator); the import below also keeps its command at
// the same version, for comparing its raw output:
//
//	go run github.com/atombender/go-jsonschema -p mcp --tags json -o /tmp/raw.go $MCP_SPEC_DIR/schema/2026-07-28/schema.json
package tools

import (
	_ "github.com/atombender/go-jsonschema"
)
