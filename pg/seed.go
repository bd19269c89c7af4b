package pg

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"golang.org/x/crypto/bcrypt"

	"boxoffice/booking"
)

// Seed fills an empty database with halls, films, ticket types, prices,
// shows and staff in one transaction. SERIALIZABLE: two servers seeding
// one new database at once must not both find it empty (the loser's
// serialization failure is retried and then finds the cinema: EConflict).
func (s *Store) Seed(ctx context.Context, seed booking.Seed, demo bool) error {
	hashes := make([]string, len(seed.Staff))
	for i, st := range seed.Staff {
		h, err := bcrypt.GenerateFromPassword([]byte(st.PIN), pinCost)
		if err != nil {
			return s.translate("seed", err)
		}
		hashes[i] = string(h)
	}
	_, err := inTx(s, ctx, "seed", txMode{iso: pgx.Serializable}, func(t *tx) (struct{}, error) {
		var n int
		if err := t.QueryRow(ctx, `SELECT (SELECT count(*) FROM halls) + (SELECT count(*) FROM meta WHERE key = 'demo')`).Scan(&n); err != nil {
			return struct{}{}, err
		}
		if n > 0 {
			return struct{}{}, booking.Errorf(booking.EConflict, "The database already has a cinema.")
		}
		return struct{}{}, seedIn(t, seed, hashes, demo)
	})
	return err
}

func seedIn(t *tx, seed booking.Seed, hashes []string, demo bool) error {
	hallIDs := make([]int64, len(seed.Halls))
	for i, h := range seed.Halls {
		if len(h.Seats) == 0 {
			return booking.Errorf(booking.EInvalid, "A hall needs seats.")
		}
		if err := t.QueryRow(t.ctx, `INSERT INTO halls (name, rows, width) VALUES ($1, $2, $3) RETURNING id`,
			booking.CleanLine(h.Name, 40), strings.Join(h.Rows, " "), h.Width).Scan(&hallIDs[i]); err != nil {
			return err
		}
		for _, seat := range h.Seats {
			kind := seat.Kind.String()
			if _, err := t.Exec(t.ctx, `INSERT INTO seats (hall_id, label, row_tag, number, row_idx, col, kind, blocked) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
				hallIDs[i], seat.Label, seat.RowTag, seat.Number, seat.Row, seat.Col, kind, seat.Blocked); err != nil {
				return err
			}
		}
	}
	filmIDs := make([]int64, len(seed.Films))
	for i, f := range seed.Films {
		if err := t.QueryRow(t.ctx, `INSERT INTO films (title, minutes, rating) VALUES ($1, $2, $3) RETURNING id`,
			booking.CleanLine(f.Title, 120), f.Minutes, booking.CleanLine(f.Rating, 16)).Scan(&filmIDs[i]); err != nil {
			return err
		}
	}
	for i, ty := range seed.TicketTypes {
		if _, err := t.Exec(t.ctx, `INSERT INTO ticket_types (code, name, price, sort) VALUES ($1, $2, $3, $4)`,
			ty.Code, booking.CleanLine(ty.Name, 40), ty.Price, i); err != nil {
			return err
		}
	}
	for _, p := range seed.Prices {
		list := strings.ToLower(p.List)
		if list != "" {
			if _, err := t.Exec(t.ctx, `INSERT INTO price_lists (name) VALUES ($1) ON CONFLICT DO NOTHING`, list); err != nil {
				return err
			}
		}
		if _, err := t.Exec(t.ctx, `INSERT INTO prices (list, type_code, seat_kind, amount) VALUES ($1, $2, $3, $4)`,
			list, p.Type, p.Kind.String(), p.Amount); err != nil {
			return err
		}
	}
	for _, sh := range seed.Shows {
		if sh.Film < 0 || sh.Film >= len(filmIDs) || sh.Hall < 0 || sh.Hall >= len(hallIDs) {
			return booking.Errorf(booking.EInvalid, "A show names a film or hall that is not in the seed.")
		}
		if _, err := t.Exec(t.ctx, `INSERT INTO shows (film_id, hall_id, starts_at, capacity) VALUES ($1, $2, $3, $4)`,
			filmIDs[sh.Film], hallIDs[sh.Hall], sh.Starts.Unix(), len(seed.Halls[sh.Hall].Seats)); err != nil {
			return err
		}
	}
	for i, st := range seed.Staff {
		if _, err := t.Exec(t.ctx, `INSERT INTO staff (name, role, pin_hash, created_at) VALUES ($1, $2, $3, $4)`,
			st.Name, st.Role.String(), hashes[i], t.nowMS()); err != nil {
			return err
		}
	}
	flag := "0"
	if demo {
		flag = "1"
	}
	if _, err := t.Exec(t.ctx, `INSERT INTO meta (key, value) VALUES ('demo', $1)`, flag); err != nil {
		return err
	}
	return audit(t, booking.System, booking.AuditEntry{Action: booking.AuditProgramme,
		Detail: fmt.Sprintf("seed: %d halls, %d films, %d shows, %d staff", len(seed.Halls), len(seed.Films), len(seed.Shows), len(seed.Staff))}, 0)
}
