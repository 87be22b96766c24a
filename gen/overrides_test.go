package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// Every override entry is written for pinned revisions of generated
// packages; an entry for none would never be checked.
func TestOverrideRevisions(t *testing.T) {
	var revs []string
	for _, tg := range targets {
		revs = append(revs, tg.Revision)
	}
	check := func(table, def string, listed []string) {
		if len(listed) == 0 {
			t.Errorf("%s[%s] lists no revision", table, def)
		}
		for _, r := range listed {
			if !slices.Contains(revs, r) {
				t.Errorf("%s[%s] lists %s, which no package is generated from (%v)", table, def, r, revs)
			}
		}
	}
	for def, o := range rawDefs {
		check("rawDefs", def, o.Revisions)
	}
	for def, o := range discriminatorOverrides {
		check("discriminatorOverrides", def, o.Revisions)
	}
	for def, o := range classifyRequires {
		check("classifyRequires", def, o.Revisions)
	}
	for def, o := range nullAsAbsent {
		check("nullAsAbsent", def, o.Revisions)
	}
}

// nullAsAbsent applies to CallToolRequestParams.arguments of both pinned
// revisions and to nothing else, and it stops fitting a schema where
// arguments is no longer an optional object without null: made required,
// made nullable, or gone. Each such change fails generation naming the
// entry, so that its reason is reviewed.
func TestNullAsAbsentOverride(t *testing.T) {
	specDir(t)
	for _, tg := range targets {
		data, cfg, _, err := tg.load(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		res, err := Generate(data, cfg)
		if err != nil {
			t.Fatalf("%s: %v", tg.Revision, err)
		}
		var got []string
		for _, n := range res.Model.Order {
			for _, f := range res.Model.Decls[n].Fields {
				if f.NullAbsent {
					got = append(got, n+"."+f.JSONName)
				}
			}
		}
		if want := []string{"CallToolRequestParams.arguments"}; !slices.Equal(got, want) {
			t.Errorf("%s: null taken for absence at %v, want %v", tg.Revision, got, want)
		}

		changes := map[string]func(params map[string]any){
			"required": func(p map[string]any) { p["required"] = append(p["required"].([]any), "arguments") },
			"nullable": func(p map[string]any) {
				p["properties"].(map[string]any)["arguments"].(map[string]any)["type"] = []any{"object", "null"}
			},
			"gone": func(p map[string]any) { delete(p["properties"].(map[string]any), "arguments") },
		}
		for name, change := range changes {
			var doc map[string]any
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			defs, _ := doc["$defs"].(map[string]any)
			if defs == nil {
				defs = doc["definitions"].(map[string]any)
			}
			change(defs["CallToolRequestParams"].(map[string]any))
			changed, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Generate(changed, cfg)
			want := "nullAsAbsent[CallToolRequestParams] is listed for " + tg.Revision + " but matches nothing"
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s, arguments %s: error = %v, want %q", tg.Revision, name, err, want)
			}
		}
	}
}

// checkOverrides refuses a pinned revision that an entry does not fit, in
// both directions. Stamping one schema with the other's revision stands in
// for a schema change under an unchanged override table.
func TestCheckOverrides(t *testing.T) {
	specDir(t) // the pins are read from MCP_SPEC_DIR, never downloaded by the tests
	legacy := targets[1]
	data, cfg, _, err := legacy.load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Revision = targets[0].Revision
	_, err = Generate(data, cfg)
	if err == nil {
		t.Fatal("2025-11-25's schema generated as 2026-07-28 with its overrides checked")
	}
	for _, want := range []string{
		"rawDefs[JSONValue] is listed for 2026-07-28 but matches nothing",
		"discriminatorOverrides[InputRequiredResult] is listed for 2026-07-28 but matches nothing",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "LegacyTitledEnumSchema") {
		t.Errorf("LegacyTitledEnumSchema fits both revisions:\n%v", err)
	}

	data, cfg, _, err = targets[0].load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Revision = legacy.Revision
	_, err = Generate(data, cfg)
	if err == nil || !strings.Contains(err.Error(), "rawDefs[JSONArray] applies to 2025-11-25 but is not listed for it") {
		t.Errorf("2026-07-28's schema generated as 2025-11-25: %v", err)
	}

	// Without the check (any other schema), the same inputs generate.
	cfg.CheckOverrides = false
	if _, err := Generate(data, cfg); err != nil {
		t.Errorf("without CheckOverrides: %v", err)
	}
}
