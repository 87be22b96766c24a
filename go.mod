module github.com/mcpwire/mcpwire

go 1.25.0
