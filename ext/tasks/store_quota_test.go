package tasks

import (
	"context"
	"errors"
	"testing"
	"time"
)

// The memory store counts tasks per Principal and QuotaKey, and keeps
// QuotaKey, like ID and Principal, whatever Update's fn does.
func TestMemoryTaskStoreQuotaKey(t *testing.T) {
	s := NewMemoryTaskStore()
	ctx := context.Background()
	now := taskNow()
	rec := func(id, principal, quota string) *TaskRecord {
		return &TaskRecord{ID: id, Principal: principal, QuotaKey: quota, Status: TaskWorking, CreatedAt: now, UpdatedAt: now, TTLMs: 1000, ExpiresAt: now.Add(time.Hour)}
	}
	for _, c := range []struct {
		r    *TaskRecord
		full bool
	}{
		{rec("a1", "", "198.51.100.1"), false},
		{rec("a2", "", "198.51.100.1"), true},
		{rec("b1", "", "198.51.100.2"), false},
		{rec("p1", "", ""), false},
		// A principal named like an address has its own count.
		{rec("x1", "198.51.100.1", ""), false},
	} {
		err := s.Create(ctx, c.r, 1)
		if c.full != errors.Is(err, ErrTaskLimit) || !c.full && err != nil {
			t.Errorf("Create %s: %v", c.r.ID, err)
		}
	}
	got, err := s.Update(ctx, "", "a1", func(r *TaskRecord) error { r.QuotaKey = "elsewhere"; return nil })
	if err != nil || got.QuotaKey != "198.51.100.1" {
		t.Errorf("Update changed the quota key: %+v, %v", got, err)
	}
	if err := s.Create(ctx, rec("a3", "", "198.51.100.1"), 1); !errors.Is(err, ErrTaskLimit) {
		t.Errorf("after an Update tried to move a1: %v", err)
	}
}
