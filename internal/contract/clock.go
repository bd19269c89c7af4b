package contract

import (
	"testing"
	"time"

	"boxoffice/booking"
)

// clockCases: the store's clock going back or forward (issue 15 item 5).
// A hold's life is in its stored row, so a clock set back an hour never
// makes a 5-minute hold block its seat for 65 minutes.
var clockCases = []testCase{
	{"BackHoldLapses", clockBackHoldLapses},
	{"BackEveryPath", clockBackEveryPath},
	{"SmallStepKeepsHolds", clockSmallStep},
	{"ForwardHoldLapses", clockForward},
	{"BackKeepsReservation", clockBackKeepsReservation},
}

func clockBackHoldLapses(t *testing.T, e *env) {
	h := e.hold(t, "a", "H4")
	e.clock.Add(-time.Hour)
	if st := e.state(t, "b", "H4"); st != booking.SeatFree {
		t.Fatalf("H4 right after the clock went back: %v, want free", st)
	}
	e.clock.Add(booking.DefaultHoldTTL + time.Second)
	if _, err := e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"H4"}, Owner: "b"}); err != nil {
		t.Fatalf("another counter's hold of H4, a TTL after the clock went back: %v", err)
	}
	_, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "ka", Method: booking.Card})
	wantCode(t, "checkout of the first hold", err, booking.EExpired)
	if st := e.state(t, "b", "H4"); st != booking.SeatHeldByMe {
		t.Fatalf("H4 on the other counter's map: %v", st)
	}
	e.counts(t, 0, 1)
}

// clockBackEveryPath: a hold made before the clock went back lapses at
// once on every path that asks whether it is live.
func clockBackEveryPath(t *testing.T, e *env) {
	grow, extend, sell := e.hold(t, "grow", "A1"), e.hold(t, "extend", "A2"), e.hold(t, "sell", "A4")
	e.clock.Add(-time.Hour)
	e.counts(t, 0, 0)
	m := e.seatMap(t, "grow")
	for _, l := range []string{"A1", "A2", "A4"} {
		if seat, _ := m.Hall.SeatByLabel(l); m.State(seat.ID) != booking.SeatFree {
			t.Fatalf("%s on the map: %v, want free", l, m.State(seat.ID))
		}
	}
	_, err := e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"B1"}, Owner: "grow", AddTo: grow.ID})
	wantCode(t, "growing the hold", err, booking.EExpired)
	_, err = e.s.Extend(e.ctx, clerk, extend.ID, "extend", 0)
	wantCode(t, "extending the hold", err, booking.EExpired)
	_, err = e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: sell.ID, Owner: "sell", IdempotencyKey: "k", Method: booking.Card})
	wantCode(t, "checkout of the hold", err, booking.EExpired)
	wantMessage(t, "checkout of the hold", err, "The hold on A4 ran out: the clock was set back since it was made. Hold the seats again.")
	e.noSale(t, "k")
	e.counts(t, 0, 0)
}

// clockSmallStep: a step back within the slack (a clock correction)
// leaves holds alone.
func clockSmallStep(t *testing.T, e *env) {
	h := e.hold(t, "a", "H4")
	e.clock.Add(-time.Second)
	e.counts(t, 0, 1)
	if _, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "k", Method: booking.Card}); err != nil {
		t.Fatalf("checkout a second after a one-second step back: %v", err)
	}
}

// clockForward: a jump forward expires holds as their expiry says, the
// checkout says so in words, and the seat is free to another counter.
func clockForward(t *testing.T, e *env) {
	h := e.hold(t, "a", "H4")
	e.clock.Add(time.Hour)
	_, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "ka", Method: booking.Card})
	wantCode(t, "checkout after the clock went forward", err, booking.EExpired)
	wantMessage(t, "checkout after the clock went forward", err, "The hold on H4 ran out 55 min ago; hold the seats again.")
	e.hold(t, "b", "H4")
}

// clockBackKeepsReservation: a reservation's expiry is its cut-off, a
// time on the wall clock, not a span from when it was made. The clock
// set back an hour leaves it reserved on every path that asks whether a
// hold is live (the sweep, the show's count, the seat map, another
// counter's hold, paying it), and it still lapses at its cut-off.
func clockBackKeepsReservation(t *testing.T, e *env) {
	r := e.reserver(t)
	paid := e.reserve(t, r, "k1", 2, "0123 456789")
	lapsing := e.reserve(t, r, "k2", 1, "0777 456789")
	counter := e.hold(t, "till", "A1")
	e.clock.Add(-time.Hour)
	// A counter's hold made before the clock went back is no
	// reservation's: it lapsed, and cannot become one.
	_, err := r.Reserve(e.ctx, clerk, booking.ReserveRequest{HoldID: counter.ID, Owner: "till", Name: "Ann", Phone: "0123456789"})
	wantMessage(t, "reserving a hold made before the clock went back", err, "Your seats were released; choose them again.")
	if x, ok := e.s.(holdExpirer); ok {
		if _, err := x.ExpireHolds(e.ctx); err != nil {
			t.Fatal(err)
		}
	}
	e.counts(t, 0, 3)
	for _, seat := range append(paid.Seats, lapsing.Seats...) {
		if st := e.state(t, "other", seat.Label); st != booking.SeatHeldByOther {
			t.Fatalf("reserved %s on another counter's map: %v, want held", seat.Label, st)
		}
	}
	_, err = e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{paid.Seats[0].Label}, Owner: "other"})
	seatsTaken(t, "another counter holds a reserved seat", err)
	if got, err := r.Reservation(e.ctx, clerk, lapsing.Number); err != nil || got.Status != booking.ReservationReserved {
		t.Fatalf("the reservation after the clock went back: %+v, %v", got, err)
	}
	b, err := r.PayReservation(e.ctx, clerk, booking.PayReservationRequest{Number: paid.Number, Method: booking.Card, IdempotencyKey: "pay"})
	if err != nil || len(b.Tickets) != 2 || b.Number != paid.Number {
		t.Fatalf("paying the reservation after the clock went back: %+v, %v", b, err)
	}
	e.counts(t, 2, 1)
	e.clock.Set(lapsing.CutOff)
	_, err = r.PayReservation(e.ctx, clerk, booking.PayReservationRequest{Number: lapsing.Number, Method: booking.Card, IdempotencyKey: "late"})
	wantCode(t, "paying at the cut-off", err, booking.EExpired)
	if got, err := r.Reservation(e.ctx, clerk, lapsing.Number); err != nil || got.Status != booking.ReservationLapsed {
		t.Fatalf("the reservation at its cut-off: %+v, %v", got, err)
	}
	e.counts(t, 2, 0)
	e.sell(t, "till", booking.Labels(lapsing.Seats)...)
}
