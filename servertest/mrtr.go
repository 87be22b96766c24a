package servertest

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpwire/mcpwire/protocol"
)

// rounds sends method and, while the server answers input_required,
// answers its input requests with the callbacks and retries with
// inputResponses and requestState (R-MRTR-03/07), at most
// cfg.maxRounds times. The final result is decoded into res.
func (c *Client) rounds(ctx context.Context, opts []Option, method, name string, params map[string]any, res any) error {
	cfg := c.callConfig(opts)
	for round := 0; ; round++ {
		raw, err := c.do(ctx, &cfg, method, name, params)
		if err != nil {
			return err
		}
		var kind struct {
			ResultType string `json:"resultType"`
		}
		if err := json.Unmarshal(raw, &kind); err != nil {
			return fmt.Errorf("servertest: decode %s result: %w", method, err)
		}
		if kind.ResultType != "input_required" {
			if err := protocol.Unmarshal(raw, res); err != nil {
				return fmt.Errorf("servertest: decode %s result: %w", method, err)
			}
			return nil
		}
		if round >= cfg.maxRounds {
			return fmt.Errorf("servertest: %s still asks for input after %d rounds (WithMaxRounds)", method, cfg.maxRounds)
		}
		var ir protocol.InputRequiredResult
		if err := protocol.Unmarshal(raw, &ir); err != nil {
			return fmt.Errorf("servertest: decode %s input_required result: %w", method, err)
		}
		responses, err := cfg.answerInputs(ctx, ir.InputRequests)
		if err != nil {
			return fmt.Errorf("servertest: %s: %w", method, err)
		}
		next := make(map[string]any, len(params)+2)
		for k, v := range params {
			if k != "inputResponses" && k != "requestState" {
				next[k] = v
			}
		}
		if len(responses) > 0 {
			b, err := protocol.Marshal(&responses)
			if err != nil {
				return fmt.Errorf("servertest: encode input responses: %w", err)
			}
			next["inputResponses"] = json.RawMessage(b)
		}
		if ir.RequestState != nil {
			next["requestState"] = *ir.RequestState
		}
		params = next
	}
}

// answerInputs calls the callback of each input request. A request
// without a callback fails the call: the Client did not declare that
// capability unless WithCapabilities said so.
func (cfg *config) answerInputs(ctx context.Context, reqs protocol.InputRequests) (protocol.InputResponses, error) {
	out := protocol.InputResponses{}
	for key, req := range reqs {
		var v protocol.InputResponseValue
		switch r := req.Value.(type) {
		case *protocol.ElicitRequest:
			if cfg.onElicit == nil {
				return nil, fmt.Errorf("input request %q is an elicitation and there is no OnElicit", key)
			}
			res, err := cfg.onElicit(ctx, r)
			if err != nil {
				return nil, fmt.Errorf("OnElicit %q: %w", key, err)
			}
			if res == nil {
				return nil, fmt.Errorf("OnElicit %q returned no result", key)
			}
			v = res
		case *protocol.CreateMessageRequest:
			if cfg.onSample == nil {
				return nil, fmt.Errorf("input request %q is a sampling request and there is no OnSample", key)
			}
			res, err := cfg.onSample(ctx, r)
			if err != nil {
				return nil, fmt.Errorf("OnSample %q: %w", key, err)
			}
			if res == nil {
				return nil, fmt.Errorf("OnSample %q returned no result", key)
			}
			v = res
		case *protocol.ListRootsRequest:
			if cfg.onRoots == nil {
				return nil, fmt.Errorf("input request %q is a roots request and there is no OnRoots", key)
			}
			res, err := cfg.onRoots(ctx, r)
			if err != nil {
				return nil, fmt.Errorf("OnRoots %q: %w", key, err)
			}
			if res == nil {
				return nil, fmt.Errorf("OnRoots %q returned no result", key)
			}
			v = res
		default:
			return nil, fmt.Errorf("input request %q of unknown kind %T", key, req.Value)
		}
		out[key] = protocol.InputResponse{Value: v}
	}
	return out, nil
}
