// Package backoff is the kubelet's crash-loop back-off: a container that exits is restarted
// at once the first time, then after Initial, doubling up to Max; a container that ran for
// Reset without exiting starts over.
package backoff

import "time"

// Policy is the schedule.
type Policy struct {
	Initial, Max, Reset time.Duration
}

// Default is the kubelet's: 10s doubling to 5 minutes, reset after 10 minutes of running.
var Default = Policy{Initial: 10 * time.Second, Max: 5 * time.Minute, Reset: 10 * time.Minute}

// State is one container's back-off.
type State struct {
	delay time.Duration
}

// Next returns how long to wait before restarting a container that ran for `ran` and exited.
func (s *State) Next(p Policy, ran time.Duration) time.Duration {
	if ran >= p.Reset {
		s.delay = 0
	}
	d := s.delay
	switch {
	case s.delay == 0:
		s.delay = p.Initial
	default:
		s.delay *= 2
		if s.delay > p.Max {
			s.delay = p.Max
		}
	}
	return d
}
