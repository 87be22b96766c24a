module github.com/mcpwire/mcpwire/bench

go 1.26

require (
	github.com/go-json-experiment/json v1.27.2
	github.com/goccy/go-json v0.12.0
	github.com/mcpwire/mcpwire v0.0.0
)

replace github.com/mcpwire/mcpwire => ../
