package main

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// The schema rules of ext_rules.go, each on a small schema: what it
// rewrites, what it refuses, and that a rule turned on for a schema where
// it rewrites nothing fails generation.

func ruleDefs(t *testing.T, data []byte) map[string]any {
	t.Helper()
	defs, err := rawDefinitions(data)
	if err != nil {
		t.Fatal(err)
	}
	return defs
}

func asJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestSchemaRules(t *testing.T) {
	for _, c := range []struct {
		rule, in, want string
		count          int
	}{
		{"undefined-record-values",
			`{"$defs":{"S":{"type":"object","propertyNames":{"anyOf":[{"type":"string","const":"a"},{"type":"string","const":"b"}]},"required":["b","a"],"additionalProperties":{"anyOf":[{"type":"string"},{}]}}}}`,
			`{"S":{"type":"object","propertyNames":{"anyOf":[{"type":"string","const":"a"},{"type":"string","const":"b"}]},"additionalProperties":{"type":"string"}}}`, 1},
		{"definition-local-defs",
			`{"$defs":{"D":{"type":"object","properties":{"v":{"$ref":"#/$defs/__j"}},"$defs":{"__j":{"anyOf":[{"type":"string"},{"type":"number"},{"type":"boolean"},{"type":"null"},{"type":"object","propertyNames":{"type":"string"},"additionalProperties":{"$ref":"#/$defs/__j"}},{"type":"array","items":{"$ref":"#/$defs/__j"}}]}}}}}`,
			`{"D":{"type":"object","properties":{"v":{}}}}`, 1},
		{"forbidden-members",
			`{"$defs":{"M":{"type":"object","properties":{"a":{"type":"string"},"b":{"not":{}}},"additionalProperties":false}}}`,
			`{"M":{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}}`, 1},
		{"inline-definition-copies",
			`{"$defs":{"C":{"$schema":"x","type":"object","properties":{"d":{"type":"array","items":{"type":"string"}}},"additionalProperties":false},"M":{"type":"object","properties":{"c":{"description":"the copy","type":"object","properties":{"d":{"type":"array","items":{"type":"string"}}},"additionalProperties":false},"s":{"type":"string"}}}}}`,
			`{"C":{"$schema":"x","type":"object","properties":{"d":{"type":"array","items":{"type":"string"}}},"additionalProperties":false},"M":{"type":"object","properties":{"c":{"$ref":"#/$defs/C","description":"the copy"},"s":{"type":"string"}}}}`, 1},
	} {
		t.Run(c.rule, func(t *testing.T) {
			out, counts, err := applySchemaRules([]byte(c.in), map[string]string{c.rule: "test"})
			if err != nil {
				t.Fatal(err)
			}
			if counts[c.rule] != c.count {
				t.Errorf("count = %d, want %d", counts[c.rule], c.count)
			}
			got, err := json.Marshal(ruleDefs(t, out))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(asJSON(t, string(got)), asJSON(t, c.want)) {
				t.Errorf("rewritten to\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

func TestSchemaRuleRefusals(t *testing.T) {
	for _, c := range []struct {
		name, rule, in, want string
	}{
		{"stale rule", "forbidden-members", `{"$defs":{"M":{"type":"object","properties":{"a":{"type":"string"}}}}}`, "rewrite nothing"},
		{"unknown rule", "no-such-rule", `{"$defs":{"M":{"type":"object"}}}`, "no such rule"},
		{"forbidden member of an open object", "forbidden-members", `{"$defs":{"M":{"type":"object","properties":{"b":{"not":{}}}}}}`, "not closed"},
		{"record whose required list is not its keys", "undefined-record-values", `{"$defs":{"S":{"type":"object","propertyNames":{"anyOf":[{"type":"string","const":"a"},{"type":"string","const":"b"}]},"required":["a"],"additionalProperties":{"anyOf":[{"type":"string"},{}]}}}}`, "not its key list"},
		{"local definition that is no JSON value", "definition-local-defs", `{"$defs":{"D":{"type":"object","properties":{"v":{"$ref":"#/$defs/__x"}},"$defs":{"__x":{"type":"string"}}}}}`, "not a JSON value schema"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := applySchemaRules([]byte(c.in), map[string]string{c.rule: "test"})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want one containing %q", err, c.want)
			}
		})
	}
}

// Every rule turned on for an extension has a reason and exists; the apps
// schema needs each of its four (TestExtGenerated would fail on a stale one).
func TestExtRulesTable(t *testing.T) {
	for ext, rules := range extRules {
		for name, reason := range rules {
			if schemaRules[name] == nil {
				t.Errorf("%s: rule %q does not exist", ext, name)
			}
			if strings.TrimSpace(reason) == "" {
				t.Errorf("%s: rule %q has no reason", ext, name)
			}
		}
	}
	if len(schemaRuleOrder) != len(schemaRules) {
		t.Errorf("schemaRuleOrder lists %d rules of %d", len(schemaRuleOrder), len(schemaRules))
	}
}
