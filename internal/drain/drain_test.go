package drain

import (
	"sync"
	"testing"
	"time"
)

// Shut waits for every piece of work that got in, refuses the rest, and
// a Shut with nothing under way is idle at once.
func TestDrain(t *testing.T) {
	var d Drain
	for range 2 {
		if !d.Enter() {
			t.Fatal("an open drain refused work")
		}
	}
	idle := d.Shut()
	if d.Enter() {
		t.Fatal("a shut drain let work in")
	}
	if !d.IsShut() || d.Shut() != idle {
		t.Fatal("a second Shut is not the first")
	}
	d.Leave()
	select {
	case <-idle:
		t.Fatal("idle with work under way")
	case <-time.After(20 * time.Millisecond):
	}
	d.Leave()
	select {
	case <-idle:
	case <-time.After(5 * time.Second):
		t.Fatal("not idle after the last Leave")
	}

	var empty Drain
	select {
	case <-empty.Shut():
	default:
		t.Fatal("an empty drain was not idle at once")
	}
}

// Many goroutines enter and leave while the drain shuts: every one that
// got in has left when idle closes, and none gets in after Shut.
func TestDrain_Race(t *testing.T) {
	for range 50 {
		var d Drain
		var inside, after sync.WaitGroup
		var mu sync.Mutex
		running := 0
		shut := make(chan struct{})
		for range 16 {
			inside.Add(1)
			go func() {
				defer inside.Done()
				for {
					select {
					case <-shut:
						if d.Enter() {
							t.Error("entered after Shut returned")
							d.Leave()
						}
						return
					default:
					}
					if !d.Enter() {
						return
					}
					mu.Lock()
					running++
					mu.Unlock()
					mu.Lock()
					running--
					mu.Unlock()
					d.Leave()
				}
			}()
		}
		after.Add(1)
		go func() {
			defer after.Done()
			idle := d.Shut()
			close(shut)
			<-idle
			mu.Lock()
			if running != 0 {
				t.Errorf("%d still running when idle closed", running)
			}
			mu.Unlock()
		}()
		after.Wait()
		inside.Wait()
	}
}
