package main

import (
	"regexp"
	"strings"
	"unicode"
)

// initialisms are written in upper case inside Go identifiers, as the Go
// team writes them (ID, URI, URL, JSON, MIME, ...).
var initialisms = map[string]string{
	"id": "ID", "uri": "URI", "url": "URL", "json": "JSON", "jsonrpc": "JSONRPC",
	"mime": "MIME", "http": "HTTP", "ttl": "TTL", "api": "API",
}

// reservedMetaPrefix is stripped from _meta keys: the field for
// "io.modelcontextprotocol/protocolVersion" is ProtocolVersion.
const reservedMetaPrefix = "io.modelcontextprotocol/"

// goFieldName turns a JSON member name into an exported Go identifier.
func goFieldName(jsonName string) string {
	n := strings.TrimPrefix(jsonName, reservedMetaPrefix)
	return goIdent(n)
}

// goIdent makes an exported identifier of any schema name: words are split
// at case changes and non-alphanumerics, initialisms are upper-cased.
func goIdent(s string) string {
	words := splitWords(s)
	var b strings.Builder
	for _, w := range words {
		lw := strings.ToLower(w)
		if up, ok := initialisms[lw]; ok {
			b.WriteString(up)
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	out := b.String()
	if out == "" || !unicode.IsLetter(rune(out[0])) {
		out = "X" + out
	}
	return out
}

var wordRE = regexp.MustCompile(`[A-Z]+[a-z0-9]*|[a-z0-9]+`)

// splitWords splits "mimeType" into ["mime", "Type"], "_meta" into ["meta"],
// "ttlMs" into ["ttl", "Ms"].
func splitWords(s string) []string {
	var out []string
	for _, part := range strings.FieldsFunc(s, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r))
	}) {
		out = append(out, wordRE.FindAllString(part, -1)...)
	}
	return out
}

// docText is a schema description as the model keeps it until the whole
// model is built; linkDocs (doclinks.go) then renders its {@link …}
// references.
func docText(s string) string {
	return strings.TrimSpace(s)
}
