package loadtest

import (
	"math/bits"
	"time"
)

// hist is a log-linear latency histogram in nanoseconds: exact below
// 128 ns, then 64 buckets per power of two, so a reported quantile (the
// middle of its bucket) is within 0.8% of the true sample. The maximum is
// kept exactly. One per client and kind, merged at the end: no locks and
// no per-sample memory on the hot path.
type hist struct {
	counts [histBuckets]uint32
	n      uint64
	max    uint64
}

const (
	histSubBits = 6
	histSub     = 1 << histSubBits
	histBuckets = (64-histSubBits-1)*histSub + 2*histSub // last index for bits.Len64 == 64, plus one
)

func histIndex(v uint64) int {
	if v < 2*histSub {
		return int(v)
	}
	shift := bits.Len64(v) - histSubBits - 1 // v>>shift is in [histSub, 2*histSub)
	return shift*histSub + int(v>>shift)
}

// histLower is the smallest value of bucket i.
func histLower(i int) uint64 {
	if i < 2*histSub {
		return uint64(i)
	}
	shift := i/histSub - 1
	return uint64(i-shift*histSub) << shift
}

func (h *hist) record(d time.Duration) {
	v := uint64(max(d, 0))
	h.counts[histIndex(v)]++
	h.n++
	h.max = max(h.max, v)
}

func (h *hist) merge(o *hist) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.max = max(h.max, o.max)
}

// quantile returns the q-quantile (0 < q <= 1): the middle of the bucket
// holding the ceil(q*n)-th smallest sample, never above the maximum.
func (h *hist) quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(q * float64(h.n))
	if float64(rank) < q*float64(h.n) {
		rank++
	}
	rank = max(rank, 1)
	var seen uint64
	for i, c := range h.counts {
		seen += uint64(c)
		if seen >= rank {
			lo, hi := histLower(i), histLower(i+1)-1
			return time.Duration(min(lo+(hi-lo)/2, h.max))
		}
	}
	return time.Duration(h.max)
}
