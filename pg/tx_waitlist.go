package pg

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// The waiting list's queries (store.WaitlistTx, store.WaitlistReads).

var _ booking.Waitlist = (*Store)(nil)

// phoneKey is a phone's digits, last first: SQLite's phone_rev, computed
// by PostgreSQL from the phone as stored (the bookings_by_phone_rev index).
const phoneKey = `reverse(regexp_replace(%s, '[^0-9]', '', 'g')) COLLATE "C"`

// boughtSince is true when waiting customer w bought seats of the show
// after they were told: their phone's digits on a booking made since.
var boughtSince = `EXISTS (SELECT 1 FROM bookings b WHERE b.phone <> '' AND ` + fmt.Sprintf(phoneKey, "b.phone") + ` = ` + fmt.Sprintf(phoneKey, "w.phone") + `
		AND b.show_id = w.show_id AND b.created_at >= w.notified_at)`

// rowQuerier is a transaction or the pool: where the waiting list's
// queries run.
type rowQuerier interface {
	querier
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// poolQueries are the waiting list's queries on the pool, outside a
// transaction.
type poolQueries struct {
	s   *Store
	ctx context.Context
}

// WaitlistView is the waiting list's queries on the pool.
func (d driver) WaitlistView(ctx context.Context) store.WaitlistQueries { return poolQueries{d.s, ctx} }

func (p poolQueries) FreeSeatCount(showID, now int64) (int, error) {
	n, err := freeSeats(p.ctx, p.s.pool, showID, now)
	return n, p.s.translate("waitlist", err)
}

func (p poolQueries) FreeSeatsAmong(showID, now int64, seatIDs []int64) (int, error) {
	n, err := freeSeatsAmong(p.ctx, p.s.pool, showID, now, seatIDs)
	return n, p.s.translate("waitlist", err)
}

func (p poolQueries) PromisedSeats(showID, since int64) (int, error) {
	n, err := promisedSeats(p.ctx, p.s.pool, showID, since)
	return n, p.s.translate("waitlist", err)
}

func (p poolQueries) Waiting(showID int64) ([]booking.WaitlistEntry, error) {
	out, err := waiting(p.ctx, p.s.pool, showID)
	return out, p.s.translate("waitlist", err)
}

// FreeSeats counts a show's free seats at now.
func (t *tx) FreeSeatCount(showID, now int64) (int, error) { return freeSeats(t.ctx, t, showID, now) }

// FreeSeatsAmong counts which of seatIDs are free at now.
func (t *tx) FreeSeatsAmong(showID, now int64, seatIDs []int64) (int, error) {
	return freeSeatsAmong(t.ctx, t, showID, now, seatIDs)
}

// PromisedSeats sums the seats promised to a show's waiting parties.
func (t *tx) PromisedSeats(showID, since int64) (int, error) {
	return promisedSeats(t.ctx, t, showID, since)
}

// Waiting lists a show's parties never told.
func (t *tx) Waiting(showID int64) ([]booking.WaitlistEntry, error) { return waiting(t.ctx, t, showID) }

func freeSeats(ctx context.Context, q rowQuerier, showID, now int64) (int, error) {
	var free int
	err := q.QueryRow(ctx, `SELECT s.capacity
		- (SELECT count(*) FROM seat_claims c WHERE c.show_id = s.id AND c.status IN ('held', 'sold') AND c.status = 'sold')
		- (SELECT count(*) FROM seat_claims c JOIN holds ho ON ho.id = c.hold_id WHERE c.show_id = s.id AND c.status IN ('held', 'sold') AND c.status = 'held' AND `+liveHold("ho", "$2")+`)
		- `+pqBlockedCount+`
		FROM shows s WHERE s.id = $1`, showID, now).Scan(&free)
	return free, err
}

// freeSeatsAmong counts the seats of a list free in a show at now, as
// freeSeats counts them: no live claim, no block in force.
func freeSeatsAmong(ctx context.Context, q rowQuerier, showID, now int64, seatIDs []int64) (int, error) {
	var n int
	err := q.QueryRow(ctx, `SELECT count(*) FROM seats x JOIN shows s ON s.id = $1
		WHERE x.id = ANY($3::bigint[]) AND NOT x.blocked
		AND NOT EXISTS (SELECT 1 FROM seat_claims c LEFT JOIN holds ho ON ho.id = c.hold_id
			WHERE c.show_id = s.id AND c.seat_id = x.id AND c.status IN ('held', 'sold') AND (c.status = 'sold' OR ho.expires_at > $2))
		AND NOT EXISTS (SELECT 1 FROM seat_blocks b WHERE b.show_id = s.id AND b.seat_id = x.id)
		AND NOT EXISTS (SELECT 1 FROM seat_blocks b WHERE b.show_id IS NULL AND b.hall_id = s.hall_id AND b.seat_id = x.id AND b.at < s.starts_at * 1000)`,
		showID, now, seatIDs).Scan(&n)
	return n, err
}

func promisedSeats(ctx context.Context, q rowQuerier, showID, since int64) (int, error) {
	var n int
	err := q.QueryRow(ctx, `SELECT coalesce(sum(w.seats), 0) FROM waitlist w
		WHERE w.show_id = $1 AND w.notified_at IS NOT NULL AND coalesce(w.called_at, w.notified_at) > $2 AND NOT `+boughtSince,
		showID, since).Scan(&n)
	return n, err
}

func waiting(ctx context.Context, q rowQuerier, showID int64) ([]booking.WaitlistEntry, error) {
	rows, err := q.Query(ctx, `SELECT id, name, phone, seats FROM waitlist WHERE show_id = $1 AND notified_at IS NULL ORDER BY created_at, id`, showID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.WaitlistEntry, error) {
		e := booking.WaitlistEntry{ShowID: showID}
		err := r.Scan(&e.ID, &e.Name, &e.Phone, &e.Seats)
		return e, err
	})
}

// ShowLifeNow reads a show's life in a statement of its own: under READ
// COMMITTED it sees a cancel or a sales close committed before it.
func (t *tx) ShowLifeNow(sh *booking.Show) error {
	var closeS int64
	err := t.QueryRow(t.ctx, `SELECT `+lifeColumns+` FROM shows s WHERE s.id = $1`, sh.ID).Scan(&sh.Status, &sh.CancelReason, &closeS)
	sh.SalesClose = time.Duration(closeS) * time.Second
	return err
}

// InsertWaitlist puts a party on a waiting list.
func (t *tx) InsertWaitlist(e booking.WaitlistEntry) (int64, error) {
	var id int64
	err := t.QueryRow(t.ctx, `INSERT INTO waitlist (show_id, name, phone, seats, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
		e.ShowID, e.Name, e.Phone, e.Seats, t.nowMS()).Scan(&id)
	return id, err
}

// DeleteWaitlist takes an entry off.
func (t *tx) DeleteWaitlist(entryID int64) (int64, bool, error) {
	var showID int64
	err := t.QueryRow(t.ctx, `DELETE FROM waitlist WHERE id = $1 RETURNING show_id`, entryID).Scan(&showID)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	return showID, err == nil, err
}

// MarkNotified tells an entry, by compare-and-set: of two servers at
// once, the second waits for the first's row lock and then finds the
// entry told.
func (t *tx) MarkNotified(entryID int64) (bool, error) {
	return t.changedOne(`UPDATE waitlist SET notified_at = $1 WHERE id = $2 AND notified_at IS NULL`, t.nowMS(), entryID)
}

// MarkCalledBy claims a call, by compare-and-set.
func (t *tx) MarkCalledBy(entryID int64, by string, toldAfter int64) (bool, error) {
	return t.changedOne(`UPDATE waitlist SET called_at = $1, called_by = $2 WHERE id = $3 AND notified_at > $4 AND called_at IS NULL`,
		t.nowMS(), by, entryID, toldAfter)
}

// ReadWaitlistEntry reads an entry's name and calls.
func (t *tx) ReadWaitlistEntry(entryID int64) (booking.WaitlistEntry, bool, error) {
	e := booking.WaitlistEntry{ID: entryID}
	var notified, called *int64
	err := t.QueryRow(t.ctx, `SELECT show_id, name, called_by, notified_at, called_at FROM waitlist WHERE id = $1`, entryID).
		Scan(&e.ShowID, &e.Name, &e.CalledBy, &notified, &called)
	if errors.Is(err, pgx.ErrNoRows) {
		return e, false, nil
	}
	e.NotifiedAt, e.CalledAt = msTime(notified), msTime(called)
	return e, err == nil, err
}

// WaitingShows lists the shows starting after startsAfter with someone
// waiting who was never told.
func (d driver) WaitingShows(ctx context.Context, startsAfter time.Time) ([]int64, error) {
	rows, err := d.s.pool.Query(ctx, `SELECT s.id FROM shows s WHERE s.starts_at > $1
		AND EXISTS (SELECT 1 FROM waitlist w WHERE w.show_id = s.id AND w.notified_at IS NULL)`, startsAfter.Unix())
	if err != nil {
		return nil, d.s.translate("notify waitlist", err)
	}
	shows, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	return shows, d.s.translate("notify waitlist", err)
}

// ReadWaitlist lists a show's waiting list, first come first.
func (d driver) ReadWaitlist(ctx context.Context, showID int64) ([]booking.WaitlistEntry, error) {
	rows, err := d.s.pool.Query(ctx, `SELECT w.id, w.name, w.phone, w.seats, w.notified_at, w.called_at, w.called_by,
			w.notified_at IS NOT NULL AND `+boughtSince+`
		FROM waitlist w WHERE w.show_id = $1 ORDER BY w.created_at, w.id`, showID)
	if err != nil {
		return nil, d.s.translate("waitlist", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.WaitlistEntry, error) {
		e := booking.WaitlistEntry{ShowID: showID}
		var at, called *int64
		err := r.Scan(&e.ID, &e.Name, &e.Phone, &e.Seats, &at, &called, &e.CalledBy, &e.Bought)
		e.NotifiedAt, e.CalledAt = msTime(at), msTime(called)
		return e, err
	})
	return out, d.s.translate("waitlist", err)
}

// ReadWaitlistCalls lists the parties to call.
func (d driver) ReadWaitlistCalls(ctx context.Context, startsAfter, toldAfter time.Time, limit int) ([]booking.WaitlistEntry, error) {
	rows, err := d.s.pool.Query(ctx, `SELECT w.id, w.show_id, w.name, w.phone, w.seats, w.notified_at
		FROM shows s JOIN waitlist w ON w.show_id = s.id
		WHERE s.starts_at > $1 AND w.notified_at > $2 AND w.called_at IS NULL AND NOT `+boughtSince+`
		ORDER BY w.notified_at, w.id LIMIT $3`, startsAfter.Unix(), toldAfter.UnixMilli(), limit)
	if err != nil {
		return nil, d.s.translate("waitlist calls", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.WaitlistEntry, error) {
		var e booking.WaitlistEntry
		var at int64
		err := r.Scan(&e.ID, &e.ShowID, &e.Name, &e.Phone, &e.Seats, &at)
		e.NotifiedAt = msTime(&at)
		return e, err
	})
	return out, d.s.translate("waitlist calls", err)
}

// msTime is a stored unix-ms time, nil for none.
func msTime(ms *int64) *time.Time {
	if ms == nil {
		return nil
	}
	t := time.UnixMilli(*ms)
	return &t
}
