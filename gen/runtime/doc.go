//go:build ignore

// Package protocol (in gen/runtime, built only as part of a generated
// package, hence the ignore constraint) is the hand-written wire runtime that
// the generator copies into every package it generates: the strict
// single-pass JSON reader and writer, the error types, the union chooser
// and the method-table type. It is written and reviewed here, as ordinary Go
// that compiles and vets on its own; the generated package gets each file
// with a "DO NOT EDIT" header and its own package name.
package protocol
