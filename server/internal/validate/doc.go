// Package validate checks tool arguments against their inputSchema, and
// values against a compiled schema, for package server: the schemas are
// compiled and tamed at registration, and the work of validating against
// them is bounded before the validator (santhosh-tekuri/jsonschema), which
// cannot be interrupted, runs.
//
// At registration, CompileInput compiles a tool's inputSchema into an
// Input, and Compile any other schema (an outputSchema, an elicitation's
// requestedSchema) into a Schema. Both refuse schemas too large, too deep
// or too costly to validate against, and take uniqueItems, enum and const
// out of the validator's hands (it compares values in quadratic time) into
// the runtime's own linear checks.
//
// On a tools/call, Input.ValidRaw decides the common case, a flat object
// of primitives (their values bounded by enum of strings, minLength,
// maxLength, pattern or the four bounds), on the text alone, in one pass
// and without allocating; what it declines takes the general path, whose
// verdict and message stand (TestFlatChecksDiffer, FuzzFlatRaw). Otherwise Parse builds the value tree
// under Limits (the digits and exponent of each number, the values of the
// whole), the caller compares what it must with the tree (the Mcp-Param-*
// headers: HeaderArgs reads them of arguments Parse refuses), and
// Input.Check refuses a number over the limits, a member name that is a
// declared property only ignoring case, arguments whose estimated
// validation work is over Limits.MaxWork, and anything the schema refuses.
// ErrorText spells out the validator's errors, ParseValue parses other
// values (structured content, elicitation answers) under the same limits.
//
// The package has no state of its own: everything it computes belongs to
// the Input or Schema it was computed for.
package validate
