package booking

import (
	"context"
	"sync"
)

// ShowChanged says that seats of a show may look different now. ShowID 0
// means "anything may have changed" (a write whose show is unknown).
type ShowChanged struct {
	ShowID int64
}

// Broker fans committed changes out to every open seat map. Publishing never
// blocks: a subscriber whose buffer is full has a change pending already, so
// the new one is merged into it by being dropped, and the subscriber repaints
// from the database anyway.
type Broker struct {
	mu   sync.Mutex
	subs map[chan ShowChanged]struct{}
}

// NewBroker returns an empty broker.
func NewBroker() *Broker {
	return &Broker{subs: make(map[chan ShowChanged]struct{})}
}

// Subscribe returns a channel of changes that is closed when ctx ends.
// Every open seat map subscribes, so ending the subscription is left to
// context.AfterFunc rather than to a goroutine of its own per subscriber.
func (b *Broker) Subscribe(ctx context.Context) <-chan ShowChanged {
	ch := make(chan ShowChanged, 16)
	b.mu.Lock()
	b.subs[ch] = struct{}{}
	b.mu.Unlock()
	context.AfterFunc(ctx, func() {
		b.mu.Lock()
		delete(b.subs, ch)
		close(ch)
		b.mu.Unlock()
	})
	return ch
}

// Publish tells every subscriber that showID changed.
func (b *Broker) Publish(showID int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs {
		select {
		case ch <- ShowChanged{ShowID: showID}:
		default:
			// Full: the subscriber is behind and will reload anyway. Make
			// sure what it does read covers this show too.
			select {
			case <-ch:
			default:
			}
			select {
			case ch <- ShowChanged{ShowID: 0}:
			default:
			}
		}
	}
}

// Subscribers returns how many subscribers are open.
func (b *Broker) Subscribers() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.subs)
}
