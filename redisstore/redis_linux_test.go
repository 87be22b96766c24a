//go:build linux

package redisstore

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill redis-server if the test binary dies
// without running its cleanups (a panic, a -timeout).
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
