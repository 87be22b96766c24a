//go:build attack

// Command regexcost measures Go regexp matching cost against pattern size
// (search_content mode=regexp takes a query of up to 1 MiB).
package main

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

func main() {
	var alts []string
	for i := 0; i < 70000; i++ {
		alts = append(alts, fmt.Sprintf("(a%db[^q]c)", i))
	}
	t := time.Now()
	re := regexp.MustCompile(strings.Join(alts, "|"))
	fmt.Println("compile", time.Since(t))
	for _, n := range []int{100, 1000, 10000} {
		s := strings.Repeat("b", n)
		t = time.Now()
		re.MatchString(s)
		fmt.Println("match", n, time.Since(t))
	}
}
