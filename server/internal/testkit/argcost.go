package testkit

import "strings"

// objectOf is the JSON object of the n members member(0) … member(n-1)
// writes.
func ObjectOf(n int, member func(i int) string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(member(i))
	}
	b.WriteByte('}')
	return b.String()
}
