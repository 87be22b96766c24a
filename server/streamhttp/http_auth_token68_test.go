package streamhttp_test

import (
	"testing"

	"github.com/mcpwire/mcpwire/server/streamhttp"
)

func TestToken68Bitmap(t *testing.T) {
	ref := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/'
	}
	for c := 0; c < 256; c++ {
		if got := streamhttp.IsToken68(string([]byte{byte(c)})); got != ref(byte(c)) {
			t.Errorf("%#x: %v", c, got)
		}
	}
	for s, want := range map[string]bool{"abc==": true, "a=b": false, "=": false, "": false, "ab c": false} {
		if streamhttp.IsToken68(s) != want {
			t.Errorf("%q", s)
		}
	}
}
