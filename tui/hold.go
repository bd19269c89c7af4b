package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// hold asks for seats, added to this session's hold. They were picked by
// hand, so the single-seat rule applies; allow is the clerk's override.
func (m *Model) hold(seats []booking.Seat, offer, allow bool) tea.Cmd {
	if m.refuseCancelled() {
		return nil
	}
	ids := make([]int64, len(seats))
	for i, seat := range seats {
		ids[i] = seat.ID
	}
	req := booking.HoldRequest{
		ShowID:      m.seats.show.ID,
		SeatIDs:     ids,
		Owner:       m.opts.Owner,
		TTL:         booking.DefaultHoldTTL,
		AddTo:       m.seats.holdID,
		ByHand:      true,
		AllowSingle: allow,
	}
	store, actor := m.store, m.actor()
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		h, err := store.Hold(ctx, actor, req)
		if err != nil && req.AddTo != 0 && booking.ErrorCode(err) == booking.EExpired {
			// The hold being added to has ended (expired, or its last
			// seat released): start a new one.
			req.AddTo = 0
			h, err = store.Hold(ctx, actor, req)
		}
		return holdMsg{showID: req.ShowID, hold: h, err: err, offer: offer}, err
	})
}

// holdBest asks for the best n seats, wheel of them wheelchair places
// (with companion seats beside them); checkout opens the checkout once
// they are held together.
func (m *Model) holdBest(n int, premium bool, wheel int, checkout bool) tea.Cmd {
	if m.refuseCancelled() {
		return nil
	}
	req := booking.HoldBestRequest{
		ShowID:     m.seats.show.ID,
		N:          n,
		Owner:      m.opts.Owner,
		TTL:        booking.DefaultHoldTTL,
		AddTo:      m.seats.holdID,
		Premium:    premium,
		Wheelchair: wheel,
	}
	m.setInfo(fmt.Sprintf("Finding the best %d…", n))
	store, actor := m.store, m.actor()
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		h, err := store.HoldBest(ctx, actor, req)
		if err != nil && req.AddTo != 0 && booking.ErrorCode(err) == booking.EExpired {
			req.AddTo = 0
			h, err = store.HoldBest(ctx, actor, req)
		}
		return holdMsg{showID: req.ShowID, hold: h, err: err, best: n, checkout: checkout}, err
	})
}

func (m *Model) release(seats []booking.Seat) tea.Cmd {
	labels := make([]string, len(seats))
	for i, seat := range seats {
		labels[i] = seat.Label
	}
	holdID := m.seats.holdID
	if holdID == 0 && m.seats.sm != nil && len(seats) > 0 {
		holdID = m.seats.sm.HoldID[seats[0].ID]
	}
	store, actor, owner, showID := m.store, m.actor(), m.opts.Owner, m.seats.show.ID
	// Show the seats as free at once; the reload that follows confirms it.
	if m.seats.sm != nil {
		for _, seat := range seats {
			delete(m.seats.sm.States, seat.ID)
		}
	}
	if len(m.seats.mine()) == 0 {
		// Nothing left held: no countdown, and the hold ending is no lapse.
		m.seats.holdID, m.seats.expires, m.seats.capped = 0, time.Time{}, false
	}
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		err := store.Release(ctx, actor, holdID, owner, labels...)
		return releaseMsg{showID: showID, seats: labels, err: err}, err
	})
}

// extend renews the hold (on the map or the checkout alike; neither loses
// anything), up to the store's lifetime limit.
func (m *Model) extend() tea.Cmd {
	if m.seats.holdID == 0 {
		m.setError("No seats are held to extend.")
		return nil
	}
	store, actor, owner, id := m.store, m.actor(), m.opts.Owner, m.seats.holdID
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		h, err := store.Extend(ctx, actor, id, owner, booking.DefaultHoldTTL)
		return extendMsg{hold: h, err: err}, err
	})
}

func (m *Model) onHold(msg holdMsg) tea.Cmd {
	s := &m.seats
	if msg.showID != s.show.ID {
		return nil
	}
	if msg.err != nil {
		var taken *booking.SeatsTakenError
		var single *booking.SingleSeatsError
		switch {
		case errors.As(msg.err, &taken):
			s.clash = newClash(taken)
			m.setInfo("")
			if offer := s.clash.offerSeats(); len(offer) > 0 {
				s.curRow, s.curCol = offer[0].Row, offer[0].Col
			}
		case errors.As(msg.err, &single):
			s.single = single
			m.setInfo("")
		default:
			m.fail(msg.err)
		}
		return m.loadSeatMapCmd()
	}
	h := msg.hold
	s.clash, s.single = nil, nil
	cmd := m.adoptHold(h)
	n := len(s.mine())
	switch {
	case msg.best > 0 && !h.Together:
		m.setError(fmt.Sprintf("No %d together — held split: %s.", msg.best, strings.Join(seatLabels(h.Seats), ", ")))
	case n > 0:
		m.setInfo(fmt.Sprintf("Holding %d: %s · enter checkout", n, strings.Join(seatLabels(s.mine()), ", ")))
	}
	if msg.best > 0 && len(h.Seats) > 0 {
		s.curRow, s.curCol = h.Seats[0].Row, h.Seats[0].Col
	}
	if msg.checkout && h.Together && m.screen == screenSeatMap && n > 0 {
		// Quantity first: the party's seats are held together, so the
		// checkout opens with their types on them.
		return tea.Batch(cmd, m.openCheckout())
	}
	return cmd
}

// singleKey answers the single-seat banner: enter holds the seats with
// the single ones they would strand, y holds them anyway (the store logs
// the override), esc chooses again, and anything else dismisses it and
// acts as usual (done false).
func (m *Model) singleKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	s := &m.seats
	e := s.single
	if e == nil {
		return nil, false
	}
	switch {
	case key.Matches(msg, m.keys.TakeOffer):
		s.single = nil
		fill := e.Fill()
		m.setInfo("Holding " + joinLabels(fill) + "…")
		return m.hold(fill, false, false), true
	case key.Matches(msg, m.keys.AllowSingle):
		s.single = nil
		m.setInfo("Holding " + joinLabels(e.Picked) + "…")
		return m.hold(e.Picked, false, true), true
	case key.Matches(msg, m.keys.Dismiss):
		s.single = nil
		m.setInfo("Choose again.")
		return nil, true
	}
	s.single = nil
	return nil, false
}

// adoptHold makes h this session's hold: its seats drawn as held here at
// once, its countdown running, any lapse banner gone. Seat maps asked for
// before it are dropped when they answer, so none paints the seats free.
func (m *Model) adoptHold(h *booking.Hold) tea.Cmd {
	s := &m.seats
	if s.holdID != h.ID {
		s.capped = false
	}
	s.holdID, s.expires, s.lapsed = h.ID, h.ExpiresAt, nil
	if h.ExpiresAt.Before(m.now().Add(booking.DefaultHoldTTL - time.Second)) {
		s.capped = true // renewing stopped at the lifetime limit
	}
	if s.sm != nil {
		if s.sm.States == nil {
			s.sm.States = map[int64]booking.SeatState{}
		}
		if s.sm.HoldID == nil {
			s.sm.HoldID = map[int64]int64{}
		}
		for _, seat := range h.Seats {
			s.sm.States[seat.ID] = booking.SeatHeldByMe
			s.sm.HoldID[seat.ID] = h.ID
		}
	}
	s.applied = s.seq
	return tea.Batch(m.loadSeatMapCmd(), m.ensureTick())
}

func (m *Model) onRelease(msg releaseMsg) tea.Cmd {
	if msg.err != nil {
		m.fail(msg.err)
	} else if m.screen == screenSeatMap && msg.showID == m.seats.show.ID {
		m.setInfo("Released " + strings.Join(msg.seats, ", ") + ".")
	}
	if msg.showID == m.seats.show.ID {
		return m.loadSeatMapCmd()
	}
	return nil
}

// onExtend shows the new countdown, or why there is none: the hold reached
// its lifetime limit, or ran out.
func (m *Model) onExtend(msg extendMsg) tea.Cmd {
	s := &m.seats
	switch code := booking.ErrorCode(msg.err); {
	case msg.err == nil:
	case code == booking.EInvalid:
		s.capped = true
		m.fail(msg.err)
		return nil
	case code == booking.EExpired, code == booking.ENotFound:
		return m.lapse(s.mine())
	default:
		m.fail(msg.err)
		return m.loadSeatMapCmd()
	}
	s.expires = msg.hold.ExpiresAt
	if msg.hold.ExpiresAt.Before(m.now().Add(booking.DefaultHoldTTL - time.Second)) {
		s.capped = true
		m.setInfo(fmt.Sprintf("Extended to the %d-minute limit: the hold ends at %s.", int(booking.MaxHoldLifetime.Minutes()),
			msg.hold.ExpiresAt.In(m.now().Location()).Format("15:04:05")))
	} else {
		m.setInfo("Hold extended: " + m.countdownText() + ".")
	}
	return m.ensureTick()
}

// lapse is the hold running out (or being let go elsewhere) under the
// clerk's eyes: the seats stop being shown as held at once, the map and
// the checkout say so, and the checkout's enter takes them again.
func (m *Model) lapse(seats []booking.Seat) tea.Cmd {
	s := &m.seats
	if len(seats) == 0 && m.checkout.hold != 0 && m.checkout.hold == s.holdID {
		seats = m.checkout.seats
	}
	if len(seats) > 0 {
		s.lapsed = seats
	}
	if s.sm != nil {
		for _, seat := range seats {
			delete(s.sm.States, seat.ID)
			delete(s.sm.HoldID, seat.ID)
		}
	}
	if m.checkout.hold != 0 && m.checkout.hold == s.holdID && m.done.booking == nil {
		m.checkout.lapsed = true
	}
	s.holdID, s.expires, s.capped = 0, time.Time{}, false
	if len(seats) == 0 {
		m.setError("The hold ran out; the seats are free again.")
	} else {
		m.setError("The hold on " + joinLabels(seats) + " ran out; the seats are free again.")
	}
	return m.loadSeatMapCmd()
}

func newClash(err *booking.SeatsTakenError) *clashState {
	c := &clashState{err: err, offer: map[int64]bool{}}
	for _, seat := range c.offerSeats() {
		c.offer[seat.ID] = true
	}
	return c
}

// takeOffer holds the seats the clash banner offers. If they too were
// just taken, the answer is a new clash with the next offer.
func (m *Model) takeOffer() tea.Cmd {
	offer := m.seats.clash.offerSeats()
	if len(offer) == 0 {
		m.seats.clash = nil
		return nil
	}
	m.setInfo("Taking " + strings.Join(seatLabels(offer), ", ") + "…")
	return m.hold(offer, true, false)
}

// ensureTick keeps the one-second hold countdown running while a hold is.
func (m *Model) ensureTick() tea.Cmd {
	if m.ticking || m.seats.expires.IsZero() {
		return nil
	}
	m.ticking = true
	return m.park(parkTick, m.tick(time.Second, func(time.Time) tea.Msg { return tickMsg{} }))
}

// onTick notices the countdown reaching zero, on whatever screen the
// clerk is (find and door keep the countdown too).
func (m *Model) onTick() tea.Cmd {
	if m.seats.expires.IsZero() || m.clerk == nil {
		return nil
	}
	if left := m.seats.expires.Sub(m.now()); left <= 0 || left > booking.MaxHoldLifetime+clockSlack {
		// More time left than any hold may have means the clock went
		// back since it was made: the store counts such a hold lapsed,
		// so the counter says so now rather than counting down an hour.
		return m.lapse(m.seats.mine())
	}
	return m.ensureTick()
}

// clockSlack is the step of a clock correction that leaves a hold alone,
// as the store allows it.
const clockSlack = 2 * time.Second

// refuseCancelled says so, and reports true, when the open map is of a
// cancelled show: no seat of it can be held (the store refuses too, in
// its transaction, for a map that has not heard yet).
func (m *Model) refuseCancelled() bool {
	if !m.seats.show.Cancelled() {
		return false
	}
	m.setError("This show was cancelled: " + booking.CleanLine(m.seats.show.CancelReason, 120) + ". No seats can be held.")
	return true
}
