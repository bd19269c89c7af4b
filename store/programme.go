package store

import (
	"context"
	"sync"
	"time"

	"boxoffice/booking"
)

// ProgrammeReads read the programme's facts, which a sale never changes:
// a show's film, hall and start, a hall's seats.
type ProgrammeReads interface {
	// ReadShowFacts reads a show's film, hall, start and capacity, with
	// SalesClose at booking.DefaultSalesClose (the facts leave a show's
	// life out). ENotFound "There is no show N.".
	ReadShowFacts(ctx context.Context, showID int64) (booking.Show, error)
	// ReadHall reads a hall with its seats in row order. ENotFound.
	ReadHall(ctx context.Context, hallID int64) (*booking.Hall, error)
}

// Programme caches the programme's facts for the life of a store: a hall's
// layout never changes once made, a show's facts only by EditFilm and
// MoveShow, which drop what they change here (and, on PostgreSQL, on every
// other server, by a notification) with Forget.
//
// A read that raced a drop must not put the old facts back: a show read
// is kept only if no drop happened while it was read (gen).
type Programme struct {
	r     ProgrammeReads
	mu    sync.Mutex
	gen   uint64
	shows map[int64]booking.Show
	halls map[int64]*booking.Hall
	seats map[int64]map[int64]booking.Seat // hall -> seat id -> seat
}

// NewProgramme makes an empty cache that reads through r.
func NewProgramme(r ProgrammeReads) *Programme {
	return &Programme{r: r, shows: map[int64]booking.Show{}, halls: map[int64]*booking.Hall{}, seats: map[int64]map[int64]booking.Seat{}}
}

// Show returns a show's facts (not its life: status, sales close).
func (p *Programme) Show(ctx context.Context, showID int64) (booking.Show, error) {
	p.mu.Lock()
	sh, ok := p.shows[showID]
	gen := p.gen
	p.mu.Unlock()
	if ok {
		return sh, nil
	}
	sh, err := p.r.ReadShowFacts(ctx, showID)
	if err != nil {
		return sh, err
	}
	p.mu.Lock()
	if p.gen == gen {
		p.shows[showID] = sh
	}
	p.mu.Unlock()
	return sh, nil
}

// Hall returns a hall with its seats.
func (p *Programme) Hall(ctx context.Context, hallID int64) (*booking.Hall, error) {
	p.mu.Lock()
	h, ok := p.halls[hallID]
	p.mu.Unlock()
	if ok {
		return h, nil
	}
	h, err := p.r.ReadHall(ctx, hallID)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]booking.Seat, len(h.Seats))
	for _, seat := range h.Seats {
		byID[seat.ID] = seat
	}
	p.mu.Lock()
	p.halls[hallID] = h
	p.seats[hallID] = byID
	p.mu.Unlock()
	return h, nil
}

// HallOfShow returns the hall a show plays in.
func (p *Programme) HallOfShow(ctx context.Context, showID int64) (*booking.Hall, error) {
	sh, err := p.Show(ctx, showID)
	if err != nil {
		return nil, err
	}
	return p.Hall(ctx, sh.HallID)
}

// Seat returns a seat of a hall read before by its id.
func (p *Programme) Seat(hallID, seatID int64) (booking.Seat, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	seat, ok := p.seats[hallID][seatID]
	return seat, ok
}

// What Forget drops.
const (
	ForgetShow = "show" // one show
	ForgetFilm = "film" // every show of a film
	ForgetAll  = "all"  // every show
)

// Forget drops the facts of one show (kind ForgetShow), of a film's shows
// (ForgetFilm) or of every show (any other kind); halls stay.
func (p *Programme) Forget(kind string, id int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.gen++
	for showID, sh := range p.shows {
		if kind == ForgetShow && showID != id || kind == ForgetFilm && sh.Film.ID != id {
			continue
		}
		delete(p.shows, showID)
	}
}

// Reset drops everything, halls too: for a database whose halls were all
// written anew (a carry from another engine).
func (p *Programme) Reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.gen++
	clear(p.shows)
	clear(p.halls)
	clear(p.seats)
}

// Rows is what both drivers' result rows offer (database/sql's and
// pgx's), for the scans written once here.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// ScanSeats reads a hall's seats from rows of id, label, row tag,
// number, row index, column, kind and blocked, in that order.
func ScanSeats(rows Rows) ([]booking.Seat, error) {
	var out []booking.Seat
	for rows.Next() {
		var seat booking.Seat
		var kind string
		if err := rows.Scan(&seat.ID, &seat.Label, &seat.RowTag, &seat.Number, &seat.Row, &seat.Col, &kind, &seat.Blocked); err != nil {
			return nil, err
		}
		seat.Kind, _ = booking.ParseSeatKind(kind)
		out = append(out, seat)
	}
	return out, rows.Err()
}

// Scanner is one row to scan: a driver's row or rows.
type Scanner interface{ Scan(dest ...any) error }

// ScanShow reads a show with its counts from a row of id, film id,
// title, minutes and rating, hall id and name, start (unix seconds),
// capacity, sold, held, blocked, price list, status, cancel reason and
// sales close (seconds), in that order.
func ScanShow(row Scanner) (booking.Show, error) {
	var sh booking.Show
	var starts, closeS int64
	err := row.Scan(&sh.ID, &sh.Film.ID, &sh.Film.Title, &sh.Film.Minutes, &sh.Film.Rating, &sh.HallID, &sh.HallName, &starts, &sh.Capacity,
		&sh.Sold, &sh.Held, &sh.Blocked, &sh.PriceList, &sh.Status, &sh.CancelReason, &closeS)
	sh.Starts = time.Unix(starts, 0)
	sh.SalesClose = time.Duration(closeS) * time.Second
	return sh, err
}

// ScanShows reads every show of rows (ScanShow).
func ScanShows(rows Rows) ([]booking.Show, error) {
	var out []booking.Show
	for rows.Next() {
		sh, err := ScanShow(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, sh)
	}
	return out, rows.Err()
}

// Each calls fn on each of rows, then says whether reading them failed.
func Each(rows Rows, fn func() error) error {
	for rows.Next() {
		if err := fn(); err != nil {
			return err
		}
	}
	return rows.Err()
}

// ScanShowFacts reads a show's programme facts from a row of id, film id,
// title, minutes and rating, hall id and name, start (unix seconds) and
// capacity, in that order. The sales close is the default: the facts
// never change, what does is read with the show's life.
func ScanShowFacts(row Scanner) (booking.Show, error) {
	var sh booking.Show
	var starts int64
	err := row.Scan(&sh.ID, &sh.Film.ID, &sh.Film.Title, &sh.Film.Minutes, &sh.Film.Rating, &sh.HallID, &sh.HallName, &starts, &sh.Capacity)
	sh.Starts = time.Unix(starts, 0)
	sh.SalesClose = booking.DefaultSalesClose
	return sh, err
}
