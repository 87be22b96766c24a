package server

import (
	"fmt"
	"slices"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/server/internal/legacy"
)

// LegacyConfig configures how a Server serves legacy clients, those of
// 2024-11-05 to 2025-11-25 that open a session with initialize
// (WithLegacy). Zero fields take the defaults. It is ignored under
// ErasModern.
type LegacyConfig struct {
	// Versions narrows the legacy revisions served (default all four:
	// 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05). initialize
	// negotiates among them; a version left out is treated as unknown.
	// New refuses a modern or unknown version.
	Versions []string
	// DowngradeModernInitialize answers an initialize naming 2026-07-28
	// with the newest legacy version served, as the legacy negotiation
	// rule asks, instead of refusing it with -32602 (ErasBoth only; under
	// ErasLegacy such an initialize is always negotiated down). See
	// docs/dual-era.md §11 R1.
	DowngradeModernInitialize bool
}

// WithLegacy configures the legacy era (ignored under ErasModern).
func WithLegacy(c LegacyConfig) Option { return func(cfg *config) { cfg.legacy = c } }

// legacyDefaults checks the legacy configuration and fills in its
// defaults: the revisions served, newest first.
func (c *config) legacyDefaults() error {
	l := &c.legacy
	c.legacyRevs = nil
	if len(l.Versions) == 0 {
		c.legacyRevs = legacy.Revisions()
	} else {
		for _, v := range l.Versions {
			r, ok := legacy.ParseRev(v)
			if !ok {
				if v == protocol.Revision {
					return fmt.Errorf("server: LegacyConfig.Versions: %s is not a legacy version (it is served without initialize)", v)
				}
				return fmt.Errorf("server: LegacyConfig.Versions: unknown version %q", v)
			}
			if slices.Contains(c.legacyRevs, r) {
				return fmt.Errorf("server: LegacyConfig.Versions: %s is listed twice", v)
			}
			c.legacyRevs = append(c.legacyRevs, r)
		}
		slices.SortFunc(c.legacyRevs, func(a, b legacy.Rev) int { return int(b) - int(a) })
	}
	l.Versions = make([]string, len(c.legacyRevs))
	for i, r := range c.legacyRevs {
		l.Versions[i] = r.String()
	}
	return nil
}
