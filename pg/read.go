package pg

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// The reads a counter sells from: the show list, one show, its seat map
// and a booking. Each is one statement (its own snapshot, under READ
// COMMITTED) or one read-only REPEATABLE READ transaction where two
// statements must agree (the seat map).

// ReadShowFacts reads a show's programme facts for store.Programme.
func (d driver) ReadShowFacts(ctx context.Context, showID int64) (booking.Show, error) {
	var sh booking.Show
	var starts int64
	err := d.s.pool.QueryRow(ctx, `SELECT s.id, f.id, f.title, f.minutes, f.rating, h.id, h.name, s.starts_at, s.capacity
		FROM shows s JOIN films f ON f.id = s.film_id JOIN halls h ON h.id = s.hall_id WHERE s.id = $1`, showID).Scan(
		&sh.ID, &sh.Film.ID, &sh.Film.Title, &sh.Film.Minutes, &sh.Film.Rating, &sh.HallID, &sh.HallName, &starts, &sh.Capacity)
	if errors.Is(err, pgx.ErrNoRows) {
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
	h := &booking.Hall{ID: hallID}

	var rows string
	if err := s.pool.QueryRow(ctx, `SELECT name, rows, width, site_id FROM halls WHERE id = $1`, hallID).Scan(&h.Name, &rows, &h.Width, &h.Site); err != nil {
		return nil, s.translate("hall", err)
	}
	h.Rows = strings.Fields(rows)
	rs, err := s.pool.Query(ctx, `SELECT id, label, row_tag, number, row_idx, col, kind, blocked FROM seats WHERE hall_id = $1 ORDER BY row_idx, col`, hallID)
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

// lifeColumns are what changes in a show's life; the default sales close
// is booking.DefaultSalesClose (30 minutes after the start), as on SQLite.
const lifeColumns = `s.status, s.cancel_reason, coalesce(s.sales_close, (SELECT value::integer FROM meta WHERE key = 'sales_close'), 1800)`

var _ = [1]struct{}{}[booking.DefaultSalesClose/time.Second-1800]

// showColumns are a show with its counts, all counted from the claims:
// sold, and held by live holds (liveHold, $1 now in ms), each through the
// show's range of seat_claims_one_live (the IN repeats its condition so
// the planner may use it), and the seats kept out of sale (blocks.go).
var showColumns = `s.id, f.id, f.title, f.minutes, f.rating, h.id, h.name, s.starts_at, s.capacity,
	(SELECT count(*) FROM seat_claims c WHERE c.show_id = s.id AND c.status IN ('held', 'sold') AND c.status = 'sold'),
	(SELECT count(*) FROM seat_claims c JOIN holds ho ON ho.id = c.hold_id WHERE c.show_id = s.id AND c.status IN ('held', 'sold') AND c.status = 'held' AND ` + liveHold("ho", "$1") + `),
	` + pqBlockedCount + `,
	s.price_list, ` + lifeColumns

const showFrom = ` FROM shows s JOIN films f ON f.id = s.film_id JOIN halls h ON h.id = s.hall_id `

func scanShow(row pgx.Row) (booking.Show, error) {
	var sh booking.Show
	var starts, closeS int64
	err := row.Scan(&sh.ID, &sh.Film.ID, &sh.Film.Title, &sh.Film.Minutes, &sh.Film.Rating, &sh.HallID, &sh.HallName, &starts, &sh.Capacity,
		&sh.Sold, &sh.Held, &sh.Blocked, &sh.PriceList, &sh.Status, &sh.CancelReason, &closeS)
	sh.Starts = time.Unix(starts, 0)
	sh.SalesClose = time.Duration(closeS) * time.Second
	return sh, err
}

// ReadShows reads the shows starting in a range, of a site's halls
// (0: every site's), with their counts.
func (d driver) ReadShows(ctx context.Context, from, to time.Time, site int64, now time.Time) ([]booking.Show, error) {
	rows, err := d.s.pool.Query(ctx, `SELECT `+showColumns+showFrom+`WHERE s.starts_at >= $2 AND s.starts_at < $3 AND ($4 = 0 OR h.site_id = $4)
		ORDER BY s.starts_at, h.name`, now.UnixMilli(), from.Unix(), to.Unix(), site)
	if err != nil {
		return nil, d.s.translate("shows", err)
	}
	defer rows.Close()
	var out []booking.Show
	for rows.Next() {
		sh, err := scanShow(rows)
		if err != nil {
			return nil, d.s.translate("shows", err)
		}
		out = append(out, sh)
	}
	return out, d.s.translate("shows", rows.Err())
}

// ReadShow reads one show with its counts.
func (d driver) ReadShow(ctx context.Context, showID int64, now time.Time) (booking.Show, bool, error) {
	sh, err := scanShow(d.s.pool.QueryRow(ctx, `SELECT `+showColumns+showFrom+`WHERE s.id = $2`, now.UnixMilli(), showID))
	if errors.Is(err, pgx.ErrNoRows) {
		return sh, false, nil
	}
	return sh, err == nil, d.s.translate("show", err)
}

// ReadShowPriceList reads a show's price list.
func (d driver) ReadShowPriceList(ctx context.Context, showID int64) (string, error) {
	var list string
	err := d.s.pool.QueryRow(ctx, `SELECT price_list FROM shows WHERE id = $1`, showID).Scan(&list)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", store.ErrNoShow(showID)
	}
	return list, d.s.translate("quote", err)
}

// ReadSeatMap reads a show's life, blocks and claims in one REPEATABLE
// READ read-only transaction, so the map is one moment of the show.
func (d driver) ReadSeatMap(ctx context.Context, sh booking.Show) (*store.SeatSnapshot, error) {
	snap := &store.SeatSnapshot{}
	err := pgx.BeginTxFunc(ctx, d.s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(t pgx.Tx) error {
		var closeS int64
		if err := t.QueryRow(ctx, `SELECT price_list, `+lifeColumns+` FROM shows s WHERE s.id = $1`, sh.ID).Scan(
			&snap.PriceList, &snap.Life.Status, &snap.Life.CancelReason, &closeS); err != nil {
			return err
		}
		snap.Life.SalesClose = time.Duration(closeS) * time.Second
		var err error
		if snap.Blocks, err = scanBlocks(t.Query(ctx, pqShowBlocks, sh.ID, sh.HallID, sh.Starts.UnixMilli())); err != nil {
			return err
		}
		snap.Claims, err = scanClaims(t.Query(ctx, qShowClaims, sh.ID))
		return err
	})
	if err != nil {
		return nil, d.s.translate("seat map", err)
	}
	return snap, nil
}
