//go:build !unix

package main

import (
	"os"
	"os/exec"
)

func setProcessGroup(cmd *exec.Cmd) {}

// signalGroup kills p; without process groups its children may survive.
func signalGroup(p *os.Process, kill bool) error {
	if p == nil {
		return nil
	}
	return p.Kill()
}
