//go:build !unix

package loadtest

import "time"

// cpuTime is not measured here: the CPU column then reads 0.
func cpuTime() time.Duration { return 0 }
