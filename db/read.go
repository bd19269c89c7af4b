package db

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"boxoffice/booking"
	"boxoffice/store"
)

// readStmt returns a statement prepared on the read pool. database/sql
// keeps one prepared copy per pooled connection, so hot reads are parsed
// once, not on every call.
func (s *Store) readStmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := s.readStmts.Load(query); ok {
		return st.(*sql.Stmt), nil
	}
	st, err := s.read.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	notePrepared(query)
	if prev, loaded := s.readStmts.LoadOrStore(query, st); loaded {
		st.Close()
		return prev.(*sql.Stmt), nil
	}
	return st, nil
}

func (s *Store) readRow(ctx context.Context, query string, args ...any) row {
	s.reads.Add(1)
	st, err := s.readStmt(ctx, query)
	if err != nil {
		return row{err: err}
	}
	return row{r: st.QueryRowContext(ctx, args...)}
}

func (s *Store) readRows(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	s.reads.Add(1)
	st, err := s.readStmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// showInfo returns a show's programme facts: film, running time, hall,
// start, capacity, from the store's cache (store.Programme). What changes
// in a show's life — whether it was cancelled, when its sales close — is
// not in it (SalesClose reads as the cinema's first default): a write asks
// liveShow in its transaction before SalesOpen.
func (s *Store) showInfo(ctx context.Context, showID int64) (booking.Show, error) {
	return s.prog.Show(ctx, showID)
}

// seatByID finds a seat of a hall already loaded by hall().
func (s *Store) seatByID(hallID, seatID int64) (booking.Seat, bool) {
	return s.prog.Seat(hallID, seatID)
}

// hallOfShow returns the hall a show plays in.
func (s *Store) hallOfShow(ctx context.Context, showID int64) (*booking.Hall, error) {
	return s.prog.HallOfShow(ctx, showID)
}

// hall returns a hall with its seats; a hall's layout never changes once
// made, so it is cached for the life of the store.
func (s *Store) hall(ctx context.Context, hallID int64) (*booking.Hall, error) {
	return s.prog.Hall(ctx, hallID)
}

// ReadShowFacts reads a show's programme facts for store.Programme.
func (d driver) ReadShowFacts(ctx context.Context, showID int64) (booking.Show, error) {
	var sh booking.Show
	var starts int64
	err := d.s.readRow(ctx, `SELECT s.id, f.id, f.title, f.minutes, f.rating, h.id, h.name, s.starts_at, s.capacity
		FROM shows s JOIN films f ON f.id = s.film_id JOIN halls h ON h.id = s.hall_id WHERE s.id = ?`, showID).Scan(
		&sh.ID, &sh.Film.ID, &sh.Film.Title, &sh.Film.Minutes, &sh.Film.Rating, &sh.HallID, &sh.HallName, &starts, &sh.Capacity)
	if err == sql.ErrNoRows {
		return sh, store.ErrNoShow(showID)
	}
	if err != nil {
		return sh, d.s.translate("show", err)
	}
	sh.Starts = time.Unix(starts, 0)
	sh.SalesClose = booking.DefaultSalesClose
	return sh, nil
}

// ReadHall reads a hall with its seats for store.Programme.
func (d driver) ReadHall(ctx context.Context, hallID int64) (*booking.Hall, error) {
	s := d.s
	h := &booking.Hall{ID: hallID, Site: booking.MainSite}
	var rows string
	if err := s.readRow(ctx, `SELECT name, rows, width FROM halls WHERE id = ?`, hallID).Scan(&h.Name, &rows, &h.Width); err != nil {
		return nil, s.translate("hall", err)
	}
	h.Rows = strings.Fields(rows)
	rs, err := s.readRows(ctx, `SELECT id, label, row_tag, number, row_idx, col, kind, blocked FROM seats WHERE hall_id = ? ORDER BY row_idx, col`, hallID)
	if err != nil {
		return nil, s.translate("hall", err)
	}
	defer rs.Close()
	for rs.Next() {
		var seat booking.Seat
		var kind string
		if err := rs.Scan(&seat.ID, &seat.Label, &seat.RowTag, &seat.Number, &seat.Row, &seat.Col, &kind, &seat.Blocked); err != nil {
			return nil, s.translate("hall", err)
		}
		seat.Kind, _ = booking.ParseSeatKind(kind)
		h.Seats = append(h.Seats, seat)
	}
	if err := rs.Err(); err != nil {
		return nil, s.translate("hall", err)
	}
	return h, nil
}

// showColumns are a show's columns and its live held-seat count; the
// first parameter is now in unix ms.
const showColumns = `s.id, f.id, f.title, f.minutes, f.rating, h.id, h.name, s.starts_at, s.capacity, s.sold, s.price_list, ` + heldCount +
	`, ` + blockedCount + `, ` + lifeColumns

// heldCount counts the seats of show s held by live holds. It reads
// the partial index seat_claims_held (migration 4), whose rows are only
// the claims held now, by repeating its condition (status = 'held'):
// neither every claim ever made, nor every sold seat of the show. Its
// condition on ho is liveHoldSQL("ho") spelled out as a constant, with ?1
// for both its parameters so callers pass now once (a test holds the two
// together).
const heldCount = `(SELECT count(*) FROM seat_claims c JOIN holds ho ON ho.id = c.hold_id
	 WHERE c.show_id = s.id AND c.status = 'held' AND (ho.expires_at > ?1 AND (ho.created_at <= ?1 + 2000 OR ho.owner GLOB 'reservation:*')))`

func scanShow(sc interface{ Scan(...any) error }) (booking.Show, error) {
	var sh booking.Show
	var starts, closeS int64
	err := sc.Scan(&sh.ID, &sh.Film.ID, &sh.Film.Title, &sh.Film.Minutes, &sh.Film.Rating, &sh.HallID, &sh.HallName, &starts, &sh.Capacity, &sh.Sold, &sh.PriceList, &sh.Held, &sh.Blocked,
		&sh.Status, &sh.CancelReason, &closeS)
	sh.Starts = time.Unix(starts, 0)
	sh.SalesClose = time.Duration(closeS) * time.Second
	return sh, err
}

// Shows lists the shows starting on the local day of day.
func (s *Store) Shows(ctx context.Context, actor booking.Actor, day time.Time) ([]booking.Show, error) {
	if err := booking.Authorize(actor, booking.ActionViewShows); err != nil {
		return nil, err
	}
	if !booking.SiteServes(actor.Site, booking.MainSite) {
		return nil, nil // every show is at the one site
	}
	from := booking.DayStart(day)
	to := from.AddDate(0, 0, 1)
	rows, err := s.readRows(ctx, `SELECT `+showColumns+`
		FROM shows s JOIN films f ON f.id = s.film_id JOIN halls h ON h.id = s.hall_id
		WHERE s.starts_at >= ? AND s.starts_at < ? ORDER BY s.starts_at, h.name`,
		s.opts.Clock().UnixMilli(), from.Unix(), to.Unix())
	if err != nil {
		return nil, s.translate("shows", err)
	}
	defer rows.Close()
	var out []booking.Show
	for rows.Next() {
		sh, err := scanShow(rows)
		if err != nil {
			return nil, s.translate("shows", err)
		}
		sh.Starts = sh.Starts.In(day.Location())
		out = append(out, sh)
	}
	return out, s.translate("shows", rows.Err())
}

// Show returns one show.
func (s *Store) Show(ctx context.Context, actor booking.Actor, showID int64) (*booking.Show, error) {
	if err := booking.Authorize(actor, booking.ActionViewShows); err != nil {
		return nil, err
	}
	sh, err := scanShow(s.readRow(ctx, `SELECT `+showColumns+`
		FROM shows s JOIN films f ON f.id = s.film_id JOIN halls h ON h.id = s.hall_id WHERE s.id = ?`,
		s.opts.Clock().UnixMilli(), showID))
	if err == sql.ErrNoRows {
		return nil, store.ErrNoShow(showID)
	}
	if err != nil {
		return nil, s.translate("show", err)
	}
	return &sh, nil
}

// claimRow is one live claim as the seat map needs it.
type claimRow struct {
	seat, holdID, created, expires int64
	sold                           bool
	owner                          string
}

// seatSnap is the live claims of one show as one read saw them, shared by
// every open map of that show until the next change to it. Two hundred
// counters repainting after one change then cost one query, not two
// hundred.
type seatSnap struct {
	version uint64
	sold    int
	list    string // the show's price list
	life    showLife
	claims  []claimRow
	blocks  map[int64]booking.SeatBlock // kept out of sale
}

// seatVersion returns the version the cached snapshot of a show must carry
// to be current.
func (s *Store) seatVersion(showID int64) uint64 {
	s.snapMu.Lock()
	defer s.snapMu.Unlock()
	return s.snapEpoch<<32 + s.snapVersion[showID]
}

// invalidate marks a show's cached seat states stale (every show when
// showID is 0). It runs after a commit and before the change is published,
// so a map that repaints on the news never reads the old snapshot.
func (s *Store) invalidate(showID int64) {
	s.snapMu.Lock()
	defer s.snapMu.Unlock()
	if showID == 0 {
		s.snapEpoch++
		clear(s.snaps)
		defer s.forgetTicketTypes() // a price change publishes 0
		return
	}
	s.snapVersion[showID]++
	delete(s.snaps, showID)
}

// seatSnapshot returns the show's live claims, from the cache when no
// change has been published since it was read.
func (s *Store) seatSnapshot(ctx context.Context, showID int64) (*seatSnap, error) {
	version := s.seatVersion(showID)
	s.snapMu.Lock()
	snap := s.snaps[showID]
	s.snapMu.Unlock()
	if snap != nil && snap.version == version {
		return snap, nil
	}
	// Both statements are prepared before the transaction takes a
	// connection: preparing on the pool while every connection sits in
	// such a transaction would wait for ever.
	soldStmt, err := s.readStmt(ctx, `SELECT sold, price_list, `+lifeColumns+` FROM shows s WHERE id = ?`)
	if err != nil {
		return nil, err
	}
	claimsStmt, err := s.readStmt(ctx, `SELECT c.seat_id, c.status = 'sold', h.owner, h.id, h.created_at, h.expires_at
		FROM seat_claims c JOIN holds h ON h.id = c.hold_id
		WHERE c.show_id = ? AND c.status IN ('held', 'sold')`)
	if err != nil {
		return nil, err
	}
	blocksStmt, err := s.readStmt(ctx, qShowBlocks)
	if err != nil {
		return nil, err
	}
	sh, err := s.showInfo(ctx, showID)
	if err != nil {
		return nil, err
	}
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	snap = &seatSnap{version: version}
	var closeS int64
	if err := tx.StmtContext(ctx, soldStmt).QueryRowContext(ctx, showID).Scan(&snap.sold, &snap.list, &snap.life.status, &snap.life.reason, &closeS); err != nil {
		return nil, err
	}
	snap.life.close = time.Duration(closeS) * time.Second
	rows, err := tx.StmtContext(ctx, claimsStmt).QueryContext(ctx, showID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var c claimRow
		if err := rows.Scan(&c.seat, &c.sold, &c.owner, &c.holdID, &c.created, &c.expires); err != nil {
			return nil, err
		}
		snap.claims = append(snap.claims, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	brows, err := tx.StmtContext(ctx, blocksStmt).QueryContext(ctx, sh.ID, sh.HallID, sh.Starts.UnixMilli())
	if err != nil {
		return nil, err
	}
	if snap.blocks, err = s.scanBlocks(brows, sh.HallID); err != nil {
		return nil, err
	}
	s.snapMu.Lock()
	if s.snapEpoch<<32+s.snapVersion[showID] == version {
		s.snaps[showID] = snap
	}
	s.snapMu.Unlock()
	return snap, nil
}

// SeatMap returns every seat of a show with its state as seen by owner.
// The claims come from one read transaction (shared between maps of the
// show until it changes); lapsed holds read as free whether or not they
// have been swept.
func (s *Store) SeatMap(ctx context.Context, actor booking.Actor, showID int64, owner string) (*booking.SeatMap, error) {
	if err := booking.Authorize(actor, booking.ActionViewShows); err != nil {
		return nil, err
	}
	sh, err := s.showInfo(ctx, showID)
	if err != nil {
		return nil, err
	}
	hall, err := s.hall(ctx, sh.HallID)
	if err != nil {
		return nil, err
	}
	if !booking.SiteServes(actor.Site, hall.Site) {
		return nil, booking.ErrOtherSite(showID)
	}
	snap, err := s.seatSnapshot(ctx, showID)
	if err != nil {
		return nil, s.translate("seat map", err)
	}
	now := s.opts.Clock().UnixMilli()
	sh.Sold, sh.PriceList = snap.sold, strings.ToLower(snap.list)
	snap.life.apply(&sh)
	m := &booking.SeatMap{Show: sh, Hall: hall, States: make(map[int64]booking.SeatState, len(snap.claims)), HoldID: make(map[int64]int64),
		Blocks: make(map[int64]booking.SeatBlock, len(snap.blocks))}
	for _, seat := range hall.Seats {
		if seat.Blocked {
			m.States[seat.ID] = booking.SeatBlocked
		}
	}
	for id, b := range snap.blocks {
		m.Blocks[id] = b
		m.States[id] = booking.SeatBlocked
		if b.Kind == booking.BlockHouse {
			m.States[id] = booking.SeatHouse
		}
	}
	for _, c := range snap.claims {
		switch {
		case c.sold:
			m.States[c.seat] = booking.SeatSold
		case !store.HoldLive(c.owner, c.created, c.expires, now):
			// Lapsed (ran out, or made later than a clock set back
			// says): free for everyone, whether or not swept yet,
			// unless kept out of sale.
		case c.owner == owner && owner != "":
			m.States[c.seat] = booking.SeatHeldByMe
			m.HoldID[c.seat] = c.holdID
			m.Show.Held++
		default:
			m.States[c.seat] = booking.SeatHeldByOther
			m.Show.Held++
		}
	}
	m.Show.Blocked = countBlocked(m)
	return m, nil
}

// countBlocked counts the seats of a map kept out of sale and neither
// sold nor held, layout blocks included: what Show.Free leaves out.
func countBlocked(m *booking.SeatMap) int {
	n := 0
	for _, st := range m.States {
		if st == booking.SeatBlocked || st == booking.SeatHouse {
			n++
		}
	}
	return n
}
