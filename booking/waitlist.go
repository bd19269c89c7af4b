package booking

import "time"

// WaitlistOffer is how long seats stay promised to a waiting customer
// after the box office was told their seats came free, or after a clerk
// called them: time to ring back or reach the counter. Until it lapses
// (or they buy) those seats are not offered to the next in the queue.
const WaitlistOffer = 15 * time.Minute

// WaitState is where a waiting-list entry stands.
type WaitState int

const (
	Waiting WaitState = iota // no seats for them yet
	ToCall                   // seats came free and are promised to them: call
	Called                   // a clerk called; the seats stay promised for the offer
	Bought                   // they bought seats of the show after being told
	Lapsed                   // the offer ran out; the seats went back to the queue
)

func (s WaitState) String() string {
	switch s {
	case ToCall:
		return "to call"
	case Called:
		return "called"
	case Bought:
		return "bought"
	case Lapsed:
		return "lapsed"
	}
	return "waiting"
}

// OfferEnds is when the seats promised to e stop being promised: the
// offer's length after they were told, or after the call. Zero while
// they wait.
func (e WaitlistEntry) OfferEnds() time.Time {
	switch {
	case e.CalledAt != nil:
		return e.CalledAt.Add(WaitlistOffer)
	case e.NotifiedAt != nil:
		return e.NotifiedAt.Add(WaitlistOffer)
	}
	return time.Time{}
}

// State says where e stands at now.
func (e WaitlistEntry) State(now time.Time) WaitState {
	switch {
	case e.Bought:
		return Bought
	case e.NotifiedAt == nil:
		return Waiting
	case !now.Before(e.OfferEnds()):
		return Lapsed
	case e.CalledAt != nil:
		return Called
	}
	return ToCall
}
