package main

import (
	"fmt"
	"os"
)

// replace sets the content of the regular file rel in d to b, creating it
// (mode 0644) when flag has os.O_CREATE; an existing file keeps its mode.
// It opens without blocking (a FIFO without a reader is refused, not
// waited for) and checks the opened file, not the name, before it
// truncates it: neither a FIFO nor a file with other hard links (which
// may be outside every allowed directory) is changed. p is the client's path, for errors.
func (f *fsys) replace(d *dir, rel, p string, b []byte, flag int) error {
	fh, info, err := f.openFile(d, rel, p, os.O_WRONLY|flag, 0o644)
	if err != nil {
		return err
	}
	defer fh.Close()
	if !info.Mode().IsRegular() {
		return fmt.Errorf("path %q: %w", p, errNotFile)
	}
	if links(info) > 1 {
		return fmt.Errorf("path %q: %w", p, errLinked)
	}
	if err := fh.Truncate(0); err != nil {
		return f.pathError(p, err)
	}
	if _, err := fh.Write(b); err != nil {
		return f.pathError(p, err)
	}
	if err := fh.Close(); err != nil {
		return f.pathError(p, err)
	}
	return nil
}
