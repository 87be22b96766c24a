package main

import (
	"log/slog"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/server/typed"
)

// The annotations of the tools. Every tool works on the allowed
// directories only (a closed world); the readers change nothing.
const (
	readOnly   = iota // reads only
	additive          // creates, never replaces or removes; again is a no-op
	overwrites        // replaces content; again with the same arguments is a no-op
	changes           // replaces or moves; again does something else
)

// annotations are the hints of one of the kinds above.
func annotations(kind int) *protocol.ToolAnnotations {
	a := &protocol.ToolAnnotations{ReadOnlyHint: server.Ptr(kind == readOnly), OpenWorldHint: server.Ptr(false)}
	if kind != readOnly {
		a.DestructiveHint = server.Ptr(kind != additive)
		a.IdempotentHint = server.Ptr(kind != changes)
	}
	return a
}

// tool is a tool's definition.
func tool(name string, kind int, description string) protocol.Tool {
	return protocol.Tool{Name: name, Description: &description, Annotations: annotations(kind)}
}

// newServer builds the server of the allowed directories f.
func newServer(logger *slog.Logger, f *fsys) (*server.Server, error) {
	s, err := server.New(protocol.Implementation{Name: "mcpwire-filesystem", Version: "0.1.0"},
		server.WithLogger(logger),
		server.WithInstructions("Reads and writes files under the allowed directories only (list_allowed_directories). "+
			"A relative path is relative to the first of them."))
	if err != nil {
		return nil, err
	}
	errs := []error{
		typed.AddTool(s, tool("list_allowed_directories", readOnly, "The directories this server may read and write."), f.listAllowed),
		typed.AddTool(s, tool("list_directory", readOnly, "The entries of a directory: [FILE], [DIR] or [LINK], with sizes."), f.listDirectory),
		typed.AddTool(s, tool("directory_tree", readOnly, "Every entry under a directory, depth first, to a depth and an entry count at most."), f.directoryTree),
		typed.AddTool(s, tool("read_text_file", readOnly, "The text of a file, or its first (head) or last (tail) lines."), f.readTextFile),
		typed.AddTool(s, tool("read_media_file", readOnly, "An image, audio or other binary file, with its MIME type."), f.readMediaFile),
		typed.AddTool(s, tool("read_multiple_files", readOnly, "The text of several files at once; a file that cannot be read says why."), f.readMultipleFiles),
		typed.AddTool(s, tool("get_file_info", readOnly, "Size, mode, modification time and type of a file or directory."), f.getFileInfo),
		typed.AddTool(s, tool("search_files", readOnly, "Paths under a directory whose name matches a glob."), f.searchFiles),
		addSearchContent(s, f),
		typed.AddTool(s, tool("write_file", overwrites, "Create a file, or replace its content."), f.writeFile),
		typed.AddTool(s, tool("edit_file", changes, "Replace exact text in a file, showing the diff; dryRun only shows it."), f.editFile),
		typed.AddTool(s, tool("create_directory", additive, "Create a directory and its missing parents; an existing one is fine."), f.createDirectory),
		typed.AddTool(s, tool("move_file", changes, "Move or rename a file or directory within an allowed directory; the destination must not exist."), f.moveFile),
		f.addResources(s),
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}

// addSearchContent registers search_content with its inferred input
// schema plus the enum of mode.
func addSearchContent(s *server.Server, f *fsys) error {
	def := tool("search_content", readOnly, "Lines of text files under a directory that hold a substring or match a regular expression.")
	in, err := typed.InferSchema[searchContentIn](nil)
	if err != nil {
		return err
	}
	in.Properties["mode"].Enum = []any{"substring", "regexp"}
	if err := typed.ToolSchemas(&def, in, nil); err != nil {
		return err
	}
	return typed.AddTool(s, def, f.searchContent)
}
