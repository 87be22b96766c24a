package server

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpwire/mcpwire/protocol"
)

// PromptHandler serves prompts/get for one prompt. args holds the
// arguments the client sent; the runtime has already checked that every
// required argument is present (R-PROMPT-03). It may return an
// *InputRequired. An *Error it returns reaches the client with its code;
// any other error is logged and answered with -32603 "Internal error",
// its text shown only under WithErrorDetails (package documentation,
// "Handler errors").
type PromptHandler func(ctx context.Context, req *Request, args map[string]string) (*protocol.GetPromptResult, error)

type prompt struct {
	def     protocol.Prompt
	handler PromptHandler
	scopes  []string // set by RequirePromptScopes
	replace bool     // set by ReplacePrompt
}

// AddPrompt registers a prompt. A name already registered is an error
// wrapping ErrDuplicate, unless opts has ReplacePrompt. Its name is held to the rule of tool names (R-TOOL-04): outside it, a
// warning in the log, or an error under WithStrictNames; an empty name is
// refused. opts (RequirePromptScopes, ReplacePrompt) configure it.
func (s *Server) AddPrompt(def protocol.Prompt, h PromptHandler, opts ...PromptOption) error {
	if err := s.checkName("prompt", def.Name); err != nil {
		return err
	}
	if h == nil {
		return fmt.Errorf("server: prompt %s: nil handler", def.Name)
	}
	p := &prompt{def: def, handler: h}
	for _, o := range opts {
		o(p)
	}
	s.mu.Lock()
	if _, ok := s.prompts[def.Name]; ok && !p.replace {
		s.mu.Unlock()
		return fmt.Errorf("server: prompt %s: %w (ReplacePrompt replaces it)", def.Name, ErrDuplicate)
	}
	s.prompts[def.Name] = p
	s.sortedPrompts.Store(nil)
	s.mu.Unlock()
	_ = s.NotifyPromptsChanged()
	return nil
}

// RemovePrompt unregisters a prompt.
func (s *Server) RemovePrompt(name string) bool {
	return unregister(s, s.prompts, name, &s.sortedPrompts, s.NotifyPromptsChanged)
}

func (s *Server) getPrompt(ctx context.Context, r *Request, p *protocol.GetPromptRequestParams) (wireResult, error) {
	pr, _ := lookup(s, s.prompts, p.Name)
	if pr == nil {
		return nil, InvalidParams("Unknown prompt: "+p.Name, nil)
	}
	if err := checkScopes(r, pr.scopes); err != nil {
		return nil, err
	}
	for _, a := range pr.def.Arguments {
		if a.Required != nil && *a.Required {
			if _, ok := p.Arguments[a.Name]; !ok {
				return nil, InvalidParams("Missing required argument: "+a.Name, nil)
			}
		}
	}
	var salient []byte // the arguments, to bind sealed state to (R-MRTR-08)
	if len(p.Arguments) > 0 {
		salient, _ = json.Marshal(p.Arguments) // a map of strings always encodes
	}
	if err := s.prepareMRTR(r, p.Name, salient, p.InputResponses, p.RequestState); err != nil {
		return nil, err
	}
	args := p.Arguments
	if args == nil {
		args = map[string]string{}
	}
	res, err := pr.handler(ctx, r, args)
	if err != nil {
		return s.handlerError(r, err)
	}
	if res == nil {
		return nil, InternalError("prompt returned no result")
	}
	if res.Messages == nil {
		res.Messages = []protocol.PromptMessage{}
	}
	return res, nil
}

// CompletionHandler serves completion/complete. It returns at most 100
// values (R-COMP-02); more are cut off and hasMore is set. It is not
// called for a ref whose prompt (RequirePromptScopes) or resource or
// template (RequireResourceScopes) needs a scope the request's token
// lacks: that request gets the 403 prompts/get or resources/read would.
// An *Error it returns reaches the client with its code; any other error
// is logged and answered with -32603 "Internal error", its text shown
// only under WithErrorDetails (package documentation, "Handler errors").
type CompletionHandler func(ctx context.Context, req *Request, p *protocol.CompleteRequestParams) (*protocol.CompleteResult, error)

func (s *Server) complete(ctx context.Context, r *Request, p *protocol.CompleteRequestParams) (wireResult, error) {
	if s.cfg.completion == nil {
		return nil, MethodNotFound(protocol.MethodCompletionComplete)
	}
	// What the ref names is guarded as prompts/get and resources/read
	// guard it (R-AUTH-08): completions may reveal its arguments' values.
	if err := checkScopes(r, s.completionScopes(p.Ref)); err != nil {
		return nil, err
	}
	res, err := s.cfg.completion(ctx, r, p)
	if err != nil {
		if e, ok := asError(err); ok {
			return nil, e
		}
		return nil, s.plainError(r, err)
	}
	if res == nil {
		res = &protocol.CompleteResult{}
	}
	if res.Completion.Values == nil {
		res.Completion.Values = []string{}
	}
	if len(res.Completion.Values) > 100 {
		res.Completion.Values = res.Completion.Values[:100]
		t := true
		res.Completion.HasMore = &t
	}
	return res, nil
}
