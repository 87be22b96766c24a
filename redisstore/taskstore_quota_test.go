package redisstore

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/ext/tasks"
)

// The task limit counts per Principal and QuotaKey (item 8 of the review).

// Tasks of one principal with different quota keys are counted apart,
// and apart from those without one; Update keeps the quota key; the index
// shares the principal's hash tag.
func TestTaskStoreQuotaKey(t *testing.T) {
	s := newStore(t, newClient(t, testRedis(t)), WithPrefix(uniquePrefix(t)))
	ctx := ctx5(t)
	rec := func(id, principal, quota string) *tasks.TaskRecord {
		r := record(id, principal, time.Hour)
		r.QuotaKey = quota
		return r
	}
	for _, c := range []struct {
		r    *tasks.TaskRecord
		full bool
	}{
		{rec("a1", "", "198.51.100.1"), false},
		{rec("a2", "", "198.51.100.1"), true},
		{rec("b1", "", "198.51.100.2"), false},
		{rec("p1", "", ""), false},
		{rec("x1", "198.51.100.1", ""), false}, // a principal named like an address
	} {
		err := s.Create(ctx, c.r, 1)
		if c.full != errors.Is(err, tasks.ErrTaskLimit) || !c.full && err != nil {
			t.Errorf("Create %s: %v", c.r.ID, err)
		}
	}
	got, err := s.Update(ctx, "", "a1", func(r *tasks.TaskRecord) error { r.QuotaKey = "elsewhere"; return nil })
	if err != nil || got.QuotaKey != "198.51.100.1" {
		t.Errorf("Update changed the quota key: %+v, %v", got, err)
	}
	if got, err := s.Get(ctx, "", "a1"); err != nil || got.QuotaKey != "198.51.100.1" {
		t.Errorf("Get: %+v, %v", got, err)
	}
	if a, b := s.indexKey("", "198.51.100.1"), s.indexKey("", ""); a == b || !strings.Contains(a, principalTag("")) || !strings.HasPrefix(a, b+":q:") {
		t.Errorf("index keys %q and %q", a, b)
	}
}
