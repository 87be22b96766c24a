package main

import (
	"context"
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
