package pg

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
)

// Building the programme on PostgreSQL, as on SQLite (db/programme.go):
// halls, films, shows, ticket types, and the demo's rolling week. Each
// runs at READ COMMITTED except AddShow (see there).

// AddHall adds a hall (parsed with booking.ParseLayout). EConflict when a
// hall of that name exists.
func (s *Store) AddHall(ctx context.Context, actor booking.Actor, h booking.Hall) (int64, error) {
	if err := booking.Authorize(actor, booking.ActionManageHalls); err != nil {
		return 0, err
	}
	if len(h.Seats) == 0 {
		return 0, booking.Errorf(booking.EInvalid, "A hall needs seats.")
	}
	site := cmp.Or(h.Site, booking.MainSite)
	return inTx(s, ctx, "add hall", txMode{}, func(t *tx) (int64, error) {
		if err := checkActor(t, actor); err != nil {
			return 0, err
		}
		if _, err := siteName(t, site); err != nil {
			return 0, err
		}
		var id int64
		err := t.QueryRow(t.ctx, `INSERT INTO halls (name, rows, width, site_id) VALUES ($1, $2, $3, $4) ON CONFLICT (name) DO NOTHING RETURNING id`,
			booking.CleanLine(h.Name, 60), strings.Join(h.Rows, " "), h.Width, site).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return 0, booking.Errorf(booking.EConflict, "There is already a hall called %s.", booking.CleanLine(h.Name, 60))
		}
		if err != nil {
			return 0, err
		}
		// The seats in one COPY, on the transaction's connection (its BEGIN
		// went with the INSERT above).
		rows := make([][]any, len(h.Seats))
		for i, seat := range h.Seats {
			rows[i] = []any{id, seat.Label, seat.RowTag, seat.Number, seat.Row, seat.Col, seat.Kind.String(), seat.Blocked}
		}
		if _, err := t.conn.CopyFrom(t.ctx, pgx.Identifier{"seats"}, []string{"hall_id", "label", "row_tag", "number", "row_idx", "col", "kind", "blocked"}, pgx.CopyFromRows(rows)); err != nil {
			return 0, err
		}
		return id, audit(t, actor, booking.AuditEntry{Action: booking.AuditProgramme, Detail: "add hall " + h.Name}, 0)
	})
}

// AddFilm adds a film to the programme.
func (s *Store) AddFilm(ctx context.Context, actor booking.Actor, f booking.Film) (int64, error) {
	if err := booking.Authorize(actor, booking.ActionManageHalls); err != nil {
		return 0, err
	}
	if err := booking.ValidateFilm(f); err != nil {
		return 0, err
	}
	return inTx(s, ctx, "add film", txMode{}, func(t *tx) (int64, error) {
		if err := checkActor(t, actor); err != nil {
			return 0, err
		}
		var id int64
		if err := t.QueryRow(t.ctx, `INSERT INTO films (title, minutes, rating) VALUES ($1, $2, $3) RETURNING id`,
			booking.CleanLine(f.Title, 120), f.Minutes, booking.CleanLine(f.Rating, 8)).Scan(&id); err != nil {
			return 0, err
		}
		return id, audit(t, actor, booking.AuditEntry{Action: booking.AuditProgramme, Detail: "add film " + f.Title}, 0)
	})
}

// AddShow schedules a film in a hall. A hall is never double-booked: the
// new show and every other show of the hall, each with its running time
// plus Cleaning, must not overlap. The hall's row is locked FOR UPDATE
// first, so two managers scheduling the same hall at once take turns and
// the second sees the first's show; no sale locks a hall's row.
// ENotFound for the film or hall, EConflict for an overlap.
func (s *Store) AddShow(ctx context.Context, actor booking.Actor, filmID, hallID int64, starts time.Time) (int64, error) {
	if err := booking.Authorize(actor, booking.ActionManageHalls); err != nil {
		return 0, err
	}
	return inTx(s, ctx, "add show", txMode{}, func(t *tx) (int64, error) {
		if err := checkActor(t, actor); err != nil {
			return 0, err
		}
		var minutes int
		var title string
		var retired bool
		err := t.QueryRow(t.ctx, `SELECT title, minutes, retired FROM films WHERE id = $1`, filmID).Scan(&title, &minutes, &retired)
		if errors.Is(err, pgx.ErrNoRows) {
			return 0, booking.Errorf(booking.ENotFound, "There is no film %d.", filmID)
		}
		if err != nil {
			return 0, err
		}
		if retired {
			return 0, booking.Errorf(booking.EInvalid, "%s is retired: it gets no new shows.", booking.Clean(title))
		}
		var capacity int
		err = t.QueryRow(t.ctx, `SELECT (SELECT count(*) FROM seats WHERE hall_id = h.id) FROM halls h WHERE h.id = $1 FOR UPDATE`, hallID).Scan(&capacity)
		if errors.Is(err, pgx.ErrNoRows) || (err == nil && capacity == 0) {
			return 0, booking.Errorf(booking.ENotFound, "There is no hall %d.", hallID)
		}
		if err != nil {
			return 0, err
		}
		if !starts.After(t.now) {
			return 0, booking.Errorf(booking.EInvalid, "A show cannot start in the past (%s).", starts.In(t.now.Location()).Format("Mon 02 Jan 15:04"))
		}
		if err := hallFree(t, hallID, starts, minutes, 0); err != nil {
			return 0, err
		}
		var id int64
		if err := t.QueryRow(t.ctx, `INSERT INTO shows (film_id, hall_id, starts_at, capacity) VALUES ($1, $2, $3, $4) RETURNING id`,
			filmID, hallID, starts.Unix(), capacity).Scan(&id); err != nil {
			return 0, err
		}
		return id, audit(t, actor, booking.AuditEntry{Action: booking.AuditProgramme, ShowID: id,
			Detail: fmt.Sprintf("add show: film %d in hall %d at %s", filmID, hallID, starts.Format("2006-01-02 15:04"))}, 0)
	})
}

// hallFree refuses a show of minutes starting at starts that would
// overlap another show of the hall, each with its running time plus
// Cleaning; except is a show not to count, 0 for none.
func hallFree(t *tx, hallID int64, starts time.Time, minutes int, except int64) error {
	start := starts.Unix()
	end := starts.Add(time.Duration(minutes)*time.Minute + booking.Cleaning).Unix()
	earliest := start - int64((booking.MaxFilmMinutes*time.Minute+booking.Cleaning)/time.Second)
	var clash string
	var clashAt int64
	err := t.QueryRow(t.ctx, `SELECT f.title, s.starts_at FROM shows s JOIN films f ON f.id = s.film_id
		WHERE s.hall_id = $1 AND s.starts_at > $2 AND s.starts_at < $3 AND s.starts_at + (f.minutes * 60) + $4 > $5 AND s.id <> $6
		ORDER BY s.starts_at LIMIT 1`, hallID, earliest, end, int64(booking.Cleaning/time.Second), start, except).Scan(&clash, &clashAt)
	switch {
	case err == nil:
		return booking.Errorf(booking.EConflict, "The hall is taken by %s at %s (with cleaning).",
			booking.Clean(clash), time.Unix(clashAt, 0).In(starts.Location()).Format("Mon 02 Jan 15:04"))
	case errors.Is(err, pgx.ErrNoRows):
		return nil
	}
	return err
}

// SetPrice adds or changes a ticket type. A changed price applies to sales
// from now on (the price generation moves with it, so every server's next
// sale reads the new table); tickets already sold keep their price.
func (s *Store) SetPrice(ctx context.Context, actor booking.Actor, ty booking.TicketType) error {
	if err := booking.Authorize(actor, booking.ActionManageHalls); err != nil {
		return err
	}
	code := strings.ToLower(strings.TrimSpace(ty.Code))
	if code == "" || len(code) > 20 || strings.Trim(code, "abcdefghijklmnopqrstuvwxyz0123456789_-") != "" {
		return booking.Errorf(booking.EInvalid, "A ticket type code is 1 to 20 lower-case letters, digits, - or _.")
	}
	name := booking.CleanLine(ty.Name, 40)
	if name == "" {
		return booking.Errorf(booking.EInvalid, "A ticket type needs a name.")
	}
	if ty.Price < 0 || ty.Price > 100_000_00 {
		return booking.Errorf(booking.EInvalid, "A price is between 0.00 and 100000.00.")
	}
	_, err := inTx(s, ctx, "set price", txMode{}, func(t *tx) (struct{}, error) {
		if err := checkActor(t, actor); err != nil {
			return struct{}{}, err
		}
		if _, err := t.Exec(t.ctx, `INSERT INTO ticket_types (code, name, price, sort) VALUES ($1, $2, $3, (SELECT coalesce(max(sort), 0) + 1 FROM ticket_types))
			ON CONFLICT (code) DO UPDATE SET name = excluded.name, price = excluded.price`, code, name, ty.Price); err != nil {
			return struct{}{}, err
		}
		t.touch(0) // every open counter reloads its prices
		return struct{}{}, audit(t, actor, booking.AuditEntry{Action: booking.AuditPriceChange, Amount: ty.Price, Detail: code + " " + name}, 0)
	})
	return err
}

// TopUpDemo keeps the demo cinema's programme rolling: for each day of
// seed that has no shows at all yet, it adds that day's shows, matching
// halls by name and films by title. Most opens find every day planned:
// that is decided with reads, and no transaction is taken.
func (s *Store) TopUpDemo(ctx context.Context, seed booking.Seed) (int, error) {
	missing := false
	for _, sh := range seed.Shows {
		day := booking.DayStart(sh.Starts)
		var n int
		if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM shows WHERE starts_at >= $1 AND starts_at < $2`, day.Unix(), day.AddDate(0, 0, 1).Unix()).Scan(&n); err != nil {
			return 0, s.translate("top up demo", err)
		}
		if n == 0 {
			missing = true
			break
		}
	}
	if !missing {
		return 0, nil
	}
	// SERIALIZABLE: two servers opening at once must not both find a day
	// empty and both plan it; the loser's serialization failure is
	// retried and finds the day planned.
	return inTx(s, ctx, "top up demo", txMode{iso: pgx.Serializable}, func(t *tx) (int, error) {
		n, err := topUp(t, seed)
		if err != nil || n == 0 {
			return n, err
		}
		return n, audit(t, booking.System, booking.AuditEntry{Action: booking.AuditProgramme, Detail: fmt.Sprintf("%d demo shows added", n)}, 0)
	})
}

func topUp(t *tx, seed booking.Seed) (int, error) {
	hallIDs := make([]int64, len(seed.Halls))
	for i, h := range seed.Halls {
		if err := t.QueryRow(t.ctx, `SELECT id FROM halls WHERE name = $1`, booking.CleanLine(h.Name, 60)).Scan(&hallIDs[i]); err != nil {
			return 0, goneAs(err, "The demo hall %s is gone.", h.Name)
		}
	}
	filmIDs := make([]int64, len(seed.Films))
	for i, f := range seed.Films {
		if err := t.QueryRow(t.ctx, `SELECT id FROM films WHERE title = $1 ORDER BY id LIMIT 1`, booking.CleanLine(f.Title, 120)).Scan(&filmIDs[i]); err != nil {
			return 0, goneAs(err, "The demo film %s is gone.", f.Title)
		}
	}
	added := 0
	planned := map[string]bool{}
	for _, sh := range seed.Shows {
		day := booking.DayStart(sh.Starts)
		key := day.Format("2006-01-02")
		if _, seen := planned[key]; !seen {
			var n int
			if err := t.QueryRow(t.ctx, `SELECT count(*) FROM shows WHERE starts_at >= $1 AND starts_at < $2`, day.Unix(), day.AddDate(0, 0, 1).Unix()).Scan(&n); err != nil {
				return 0, err
			}
			planned[key] = n > 0
		}
		if planned[key] {
			continue
		}
		if _, err := t.Exec(t.ctx, `INSERT INTO shows (film_id, hall_id, starts_at, capacity) VALUES ($1, $2, $3, $4)`,
			filmIDs[sh.Film], hallIDs[sh.Hall], sh.Starts.Unix(), len(seed.Halls[sh.Hall].Seats)); err != nil {
			return 0, err
		}
		added++
	}
	return added, nil
}

// goneAs turns "no rows" into a not-found error.
func goneAs(err error, format string, args ...any) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return booking.Errorf(booking.ENotFound, format, args...)
	}
	return err
}

// RetireFilm takes a film off the programme: its shows stay, it gets no
// new ones. ENotFound; EConflict when it is retired already (the
// compare-and-set that retires it is the check, so two managers retiring
// it at once are told so once).
func (s *Store) RetireFilm(ctx context.Context, actor booking.Actor, filmID int64) error {
	if err := booking.Authorize(actor, booking.ActionManageHalls); err != nil {
		return err
	}
	_, err := inTx(s, ctx, "retire film", txMode{}, func(t *tx) (struct{}, error) {
		if err := checkActor(t, actor); err != nil {
			return struct{}{}, err
		}
		var title string
		var was bool
		err := t.QueryRow(t.ctx, `WITH old AS (SELECT title, retired FROM films WHERE id = $1 FOR UPDATE)
			UPDATE films f SET retired = true FROM old WHERE f.id = $1 RETURNING old.title, old.retired`, filmID).Scan(&title, &was)
		if errors.Is(err, pgx.ErrNoRows) {
			return struct{}{}, booking.Errorf(booking.ENotFound, "There is no film %d.", filmID)
		}
		if err != nil {
			return struct{}{}, err
		}
		if was {
			return struct{}{}, booking.Errorf(booking.EConflict, "%s is retired already.", booking.Clean(title))
		}
		return struct{}{}, audit(t, actor, booking.AuditEntry{Action: booking.AuditProgramme, Detail: fmt.Sprintf("retire film %d: %s", filmID, booking.Clean(title))}, 0)
	})
	return err
}
