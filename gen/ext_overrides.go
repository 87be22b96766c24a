package main

// extOverrides, per extension, name the definitions that an extension
// schema may define differently from the core definition of the same name,
// each with the reason (the review of why the extension's shape is right).
// Such a definition is emitted into the extension package under its own
// name instead of being mapped onto the core type. An entry for a
// definition that is equal to the core's, or that the core does not have,
// fails generation: the table holds no stale entries.
//
// ext-tasks (commit e4345978) needs none: its 56 copies of core
// definitions are equal to 2026-07-28's.
//
// ext-apps (@modelcontextprotocol/ext-apps 2.0.4) needs none: it has no
// definition of a core name (its copies of core types are inline, and its
// own forms are handled by the schema rules of ext_rules.go).
var extOverrides = map[string]map[string]string{
	"apps":  {},
	"tasks": {},
}
