package store

import (
	"context"
	"strings"
	"time"

	"boxoffice/booking"
)

// The reads a counter sells from: the day's shows, one show, its seat map
// and a quote. The seat-state rule lives here once: a sold seat is sold,
// a seat held by a live hold (HoldLive) is the asker's or another's, a
// lapsed hold's seat is free whether or not swept, and a seat kept out
// of sale reads as blocked or a house seat unless it is sold or held.

// Shows lists the shows starting on the local day of day, by start: of
// the halls of the actor's site when it works at one.
func (s *Store) Shows(ctx context.Context, actor booking.Actor, day time.Time) ([]booking.Show, error) {
	if err := booking.Authorize(actor, booking.ActionViewShows); err != nil {
		return nil, err
	}
	site := actor.Site
	if s.d.OneSite() {
		if !booking.SiteServes(actor.Site, booking.MainSite) {
			return nil, nil // every show is at the one site
		}
		site = 0
	}
	day, err := DayAt(s, ctx, actor.Site, day) // the site's own day
	if err != nil {
		return nil, err
	}
	from := booking.DayStart(day)
	out, err := s.d.ReadShows(ctx, from, from.AddDate(0, 0, 1), site, s.d.Now())
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Starts = out[i].Starts.In(day.Location())
	}
	return out, nil
}

// Show returns one show with its counts.
func (s *Store) Show(ctx context.Context, actor booking.Actor, showID int64) (*booking.Show, error) {
	if err := booking.Authorize(actor, booking.ActionViewShows); err != nil {
		return nil, err
	}
	sh, found, err := s.d.ReadShow(ctx, showID, s.d.Now())
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, ErrNoShow(showID)
	}
	return &sh, nil
}

// SeatMap returns every seat of a show with its state as seen by owner,
// from one moment of the show (ReadSeatMap).
func (s *Store) SeatMap(ctx context.Context, actor booking.Actor, showID int64, owner string) (*booking.SeatMap, error) {
	if err := booking.Authorize(actor, booking.ActionViewShows); err != nil {
		return nil, err
	}
	sh, err := s.prog.Show(ctx, showID)
	if err != nil {
		return nil, err
	}
	hall, err := s.prog.Hall(ctx, sh.HallID)
	if err != nil {
		return nil, err
	}
	if !booking.SiteServes(actor.Site, hall.Site) {
		return nil, booking.ErrOtherSite(showID)
	}
	snap, err := s.d.ReadSeatMap(ctx, sh)
	if err != nil {
		return nil, err
	}
	now := s.d.Now().UnixMilli()
	sh.PriceList = strings.ToLower(snap.PriceList)
	sh.Status, sh.CancelReason, sh.SalesClose = snap.Life.Status, snap.Life.CancelReason, snap.Life.SalesClose
	m := &booking.SeatMap{Hall: hall, States: make(map[int64]booking.SeatState, len(snap.Claims)), HoldID: map[int64]int64{},
		Blocks: map[int64]booking.SeatBlock{}}
	for _, c := range snap.Claims {
		switch {
		case c.Sold:
			m.States[c.SeatID] = booking.SeatSold
			sh.Sold++
		case !HoldLive(c.Owner, c.Created, c.Expires, now):
			// Lapsed (ran out, or made later than a clock set back
			// says): free for everyone, whether or not swept yet.
		case c.Owner == owner && owner != "":
			m.States[c.SeatID] = booking.SeatHeldByMe
			m.HoldID[c.SeatID] = c.HoldID
			sh.Held++
		default:
			m.States[c.SeatID] = booking.SeatHeldByOther
			sh.Held++
			if IsReservationOwner(c.Owner) {
				if m.Reserved == nil {
					m.Reserved = map[int64]time.Time{}
				}
				m.Reserved[c.SeatID] = time.UnixMilli(c.Expires)
			}
		}
	}
	for id, b := range s.blocksInForce(hall, snap.Blocks) {
		m.Blocks[id] = b
		if _, claimed := m.States[id]; claimed {
			continue
		}
		m.States[id] = booking.SeatBlocked
		if b.Kind == booking.BlockHouse {
			m.States[id] = booking.SeatHouse
		}
		sh.Blocked++
	}
	m.Show = sh
	return m, nil
}

// Quote prices seats of a show at the ticket types chosen, as a checkout
// would now.
func (s *Store) Quote(ctx context.Context, actor booking.Actor, req booking.QuoteRequest) (*booking.Quote, error) {
	if err := booking.Authorize(actor, booking.ActionSell); err != nil {
		return nil, err
	}
	if len(req.SeatIDs) == 0 || len(req.SeatIDs) > booking.MaxSeatsPerSale {
		return nil, booking.Errorf(booking.EInvalid, "A quote is for 1 to %d seats.", booking.MaxSeatsPerSale)
	}
	sh, err := s.prog.Show(ctx, req.ShowID)
	if err != nil {
		return nil, err
	}
	if _, err := s.prog.Hall(ctx, sh.HallID); err != nil { // loads the seats Seat reads
		return nil, err
	}
	seats := make([]booking.Seat, len(req.SeatIDs))
	for i, id := range req.SeatIDs {
		var ok bool
		if seats[i], ok = s.prog.Seat(sh.HallID, id); !ok {
			return nil, booking.Errorf(booking.EInvalid, "Seat %d is not in %s.", id, booking.CleanLine(sh.HallName, 60))
		}
	}
	list, err := s.d.ReadShowPriceList(ctx, req.ShowID)
	if err != nil {
		return nil, err
	}
	t, err := s.d.ReadPriceTable(ctx)
	if err != nil {
		return nil, err
	}
	q, err := booking.QuoteSeats(t, strings.ToLower(list), seats, req.Types)
	if err != nil {
		return nil, err
	}
	q.ShowID = req.ShowID
	return q, nil
}
