package server

import (
	"errors"
	"fmt"
	"regexp"
)

// ErrDuplicate is wrapped by the error of AddTool, typed.AddTool and
// AddPrompt for a name that is already registered: a tool's name is
// unique within its server (R-TOOL-04), and a prompt's is held to the
// same rule, so that registering two things under one name by mistake
// shows at start-up. Replace (tools) and ReplacePrompt (prompts) replace
// the registration on purpose, as a server whose offer changes at run
// time does.
var ErrDuplicate = errors.New("name already registered")

// Replace lets AddTool and typed.AddTool replace a tool registered under
// the same name, instead of failing with ErrDuplicate. Calls already
// running finish with the tool they started with; listen streams get
// notifications/tools/list_changed.
func Replace() ToolOption {
	return func(_ *Server, t *tool) error {
		t.replace = true
		return nil
	}
}

// ReplacePrompt lets AddPrompt replace a prompt registered under the same
// name, instead of failing with ErrDuplicate.
func ReplacePrompt() PromptOption { return func(p *prompt) { p.replace = true } }

// nameRE is the form tool names SHOULD take (R-TOOL-04); prompt names are
// held to it too.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// WithStrictNames makes AddTool, typed.AddTool and AddPrompt refuse a name
// that is not 1 to 128 characters of [A-Za-z0-9_.-]. Without it such a
// name is accepted and a warning logged (WithLogger): the specification
// says tool names SHOULD take that form (R-TOOL-04), so a client may
// still call the tool, but some refuse it or mangle it. An empty name is
// refused either way.
func WithStrictNames() Option { return func(c *config) { c.strictNames = true } }

// checkName applies the rule of R-TOOL-04 to the name of a tool or a
// prompt (kind): an error for an empty name, or one outside the rule
// under WithStrictNames, else a warning for a name outside it.
func (s *Server) checkName(kind, name string) error {
	switch {
	case name == "":
		return fmt.Errorf("server: a %s needs a name", kind)
	case nameRE.MatchString(name):
		return nil
	case s.cfg.strictNames:
		return fmt.Errorf("server: %s name %q: want 1-128 characters of [A-Za-z0-9_.-] (R-TOOL-04; WithStrictNames is set)", kind, name)
	}
	s.log.Warn("server: "+kind+" name is not 1-128 characters of [A-Za-z0-9_.-], as the specification says it should be (R-TOOL-04); some clients may refuse it (WithStrictNames refuses it at registration)", kind, name)
	return nil
}
