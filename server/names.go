package server

import (
	"fmt"
	"regexp"
)

// nameRE is the form tool names SHOULD take (R-TOOL-04); prompt names are
// held to it too.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// WithStrictNames makes AddTool, AddTypedTool and AddPrompt refuse a name
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
