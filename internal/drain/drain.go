// Package drain is the one primitive behind every graceful stop in
// boxoffice: let work in until the door shuts, then wait for the work
// already inside. The store uses it to quiesce its writes, the SSH server
// to wait for its session handlers.
package drain

import "sync"

// Drain counts work under way and, once shut, refuses more. The zero
// value is open.
type Drain struct {
	mu   sync.Mutex
	shut bool
	n    int
	idle chan struct{} // made by the first Shut; closed once shut with nothing under way
}

// Enter reports whether work may start; a true must be followed by one
// Leave when the work is done. Entering and shutting take the same lock,
// so the wait Shut starts sees every Enter that returned true.
func (d *Drain) Enter() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.shut {
		return false
	}
	d.n++
	return true
}

// Leave marks one piece of work done.
func (d *Drain) Leave() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.n--
	if d.n < 0 {
		panic("drain: Leave without Enter")
	}
	if d.shut && d.n == 0 {
		close(d.idle)
	}
}

// Shut refuses new work from now on and returns a channel closed once the
// work under way has left. It may be called again; every call returns the
// same channel.
func (d *Drain) Shut() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.shut {
		d.shut = true
		d.idle = make(chan struct{})
		if d.n == 0 {
			close(d.idle)
		}
	}
	return d.idle
}

// IsShut reports whether Shut was called.
func (d *Drain) IsShut() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.shut
}

// Len is how much work is under way.
func (d *Drain) Len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.n
}
