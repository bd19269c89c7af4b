package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// Resume is where a session was when it ended without the clerk quitting
// (a closed laptop, a lost network): enough for a later session with the
// same Owner, whose holds are still live, to put the clerk back on the
// seat map or the checkout they had open. Model.Resume makes one; a
// server keeps it for the grace period and passes it in Options.Resume.
type Resume struct {
	// StaffID is the clerk who was signed in. A session that opens on the
	// sign-in screen (a shared terminal) resumes only for this clerk.
	StaffID int64
	// ShowID is the show whose seat map was open.
	ShowID int64
	// HoldID is the live hold the clerk was building or selling, 0 for
	// none, and Seats its seat labels in hall order.
	HoldID int64
	Seats  []string
	// Expires is when HoldID runs out, as the dropped session counted
	// down to it (the seat map says which seats are held, not until
	// when); zero for none.
	Expires time.Time
	// Checkout is the checkout of HoldID, when it was on screen.
	Checkout *ResumeCheckout
}

// ResumeCheckout is an open checkout: the form as the clerk left it and
// whether the sale was sent without its answer being seen. The
// idempotency key is not kept: it follows from the owner and the hold (see
// checkoutKey), so the resumed checkout sends the same one.
type ResumeCheckout struct {
	Types     map[string]string // seat label -> ticket type code
	Method    booking.PayMethod
	Tendered  string
	Customer  string
	Phone     string
	Submitted bool
}

// Resume returns where the session is, for a session that takes over its
// holds after a drop, or nil when there is nothing to reopen: the clerk
// quit or signed out, the store withdrew the session's access, or no seat
// map, checkout or fresh sale is on screen and no seats are held. A sale on the done screen resumes as its
// checkout, sent: the resumed session finds the booking by its key and
// shows it again, since the clerk may never have seen it. Call it only
// once the program has stopped.
func (m *Model) Resume() *Resume {
	if m.closing || m.clerk == nil || m.Withdrawn() {
		return nil
	}
	s, c := &m.seats, &m.checkout
	r := &Resume{StaffID: m.clerk.id, ShowID: s.show.ID, HoldID: s.holdID, Expires: s.expires}
	switch {
	case c.hold != 0 && (m.screen == screenCheckout || (m.screen == screenDone && m.done.booking != nil)):
		types := make(map[string]string, len(c.types))
		for k, v := range c.types {
			types[k] = v
		}
		r.HoldID = c.hold
		for _, seat := range c.seats {
			r.Seats = append(r.Seats, seat.Label)
		}
		r.Checkout = &ResumeCheckout{
			Types:     types,
			Method:    c.method,
			Tendered:  c.tendered.String(),
			Customer:  c.name.String(),
			Phone:     c.phone.String(),
			Submitted: c.busy || m.screen == screenDone,
		}
		if m.screen == screenDone {
			r.ShowID = m.done.booking.Show.ID
		}
	case m.screen == screenSeatMap || m.heldCount() > 0:
		for _, seat := range s.mine() {
			r.Seats = append(r.Seats, seat.Label)
		}
	default:
		return nil
	}
	if r.ShowID == 0 {
		return nil
	}
	return r
}

// ClerkQuit reports whether the session ended because the clerk quit
// (ctrl+c), which released its holds: a later session has nothing to
// resume and nothing to be told about.
func (m *Model) ClerkQuit() bool { return m.closing }

// resumedMsg answers resumeCmd: the seat map of the resumed show and, for a
// resumed checkout, the booking its key already made.
type resumedMsg struct {
	r       *Resume
	seatMap seatMapMsg
	sold    *booking.Booking
	err     error
}

// resumeCmd reopens Options.Resume once, if it belongs to the clerk signed
// in: the seat map of its show, and, when a checkout was open, either the
// booking its key made (the sale went through before the drop) or the
// checkout again with the same key.
func (m *Model) resumeCmd() tea.Cmd {
	r := m.resume
	m.resume = nil
	if r == nil || m.clerk == nil || r.ShowID == 0 || (r.StaffID != 0 && r.StaffID != m.clerk.id) {
		return nil
	}
	m.screen = screenSeatMap
	m.seats = seatMapState{show: booking.Show{ID: r.ShowID}, input: newField(12), seq: m.seats.seq + 1, applied: m.seats.seq}
	m.setInfo("Reconnected: reopening where you were…")
	key := ""
	if r.Checkout != nil && r.HoldID != 0 {
		key = checkoutKey(m.opts.Owner, r.HoldID)
	}
	store, actor, owner, seq := m.store, m.actor(), m.opts.Owner, m.seats.seq
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		msg := resumedMsg{r: r}
		if key != "" {
			b, err := store.BookingByKey(ctx, actor, key)
			switch {
			case err == nil:
				msg.sold = b
			case booking.ErrorCode(err) != booking.ENotFound:
				msg.err = err
				return msg, err
			}
		}
		sm, err := store.SeatMap(ctx, actor, r.ShowID, owner)
		msg.seatMap = seatMapMsg{showID: r.ShowID, sm: sm, err: err, seq: seq}
		return msg, err
	})
}

func (m *Model) onResumed(msg resumedMsg) tea.Cmd {
	if msg.err != nil || m.screen != screenSeatMap || m.seats.show.ID != msg.r.ShowID {
		// The lookup failed, or the clerk has moved on meanwhile: the seat
		// map loads as usual and a checkout reopens by hand, under the
		// same key.
		if msg.err != nil {
			m.fail(msg.err)
		}
		return m.loadSeatMapCmd()
	}
	r := msg.r
	cmd := m.onSeatMap(msg.seatMap)
	if r.HoldID != 0 && m.seats.holdID == r.HoldID && m.seats.expires.IsZero() && !r.Expires.IsZero() {
		// The hold is still this session's: its countdown goes on from
		// where the dropped session left it (and says so when it ends).
		m.seats.expires = r.Expires
		cmd = tea.Batch(cmd, m.ensureTick())
	}
	if msg.sold != nil {
		// The dropped session's sale committed; its answer was lost with
		// the connection. Show it instead of offering a second sale.
		m.seats.holdID, m.seats.expires = 0, time.Time{}
		m.checkout = checkoutState{hold: r.HoldID, key: checkoutKey(m.opts.Owner, r.HoldID)}
		m.openDone(msg.sold)
		m.setInfo("Sold " + booking.Clean(msg.sold.Number) + " before the connection dropped.")
		return tea.Batch(cmd, m.printBooking(msg.sold.Number))
	}
	if m.seats.sm == nil {
		return cmd
	}
	mine := m.seats.mine()
	if r.Checkout == nil {
		if len(mine) > 0 {
			m.setInfo(fmt.Sprintf("Reconnected: holding %d: %s · enter checkout", len(mine), strings.Join(seatLabels(mine), ", ")))
		} else {
			m.setInfo("Reconnected.")
		}
		return cmd
	}
	if len(mine) == 0 || m.seats.holdID != r.HoldID {
		m.setError(fmt.Sprintf("The hold on %s ended while the connection was down; choose the seats again.", strings.Join(r.Seats, ", ")))
		return cmd
	}
	cmd = tea.Batch(cmd, m.openCheckout())
	c := &m.checkout
	for label, code := range r.Checkout.Types {
		if _, ok := c.types[label]; ok {
			c.types[label] = code
		}
	}
	if r.Checkout.Method == booking.Card || r.Checkout.Method == booking.Cash {
		c.method = r.Checkout.Method
	}
	c.tendered.Set(r.Checkout.Tendered)
	c.name.Set(r.Checkout.Customer)
	c.phone.Set(r.Checkout.Phone)
	if c.method == booking.Card {
		c.focus = len(c.seats) + focusMethod
	}
	if r.Checkout.Submitted {
		c.focus = len(c.seats) + focusSell
		m.setInfo("Reconnected: no sale was recorded before the drop — enter sells it (never twice).")
	} else {
		m.setInfo("Reconnected: the checkout is as you left it.")
	}
	return cmd
}
