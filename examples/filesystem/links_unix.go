//go:build unix

package main

import (
	"io/fs"
	"syscall"
)

// links is the number of hard links of the file info describes, 1 when
// the system does not say.
func links(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
